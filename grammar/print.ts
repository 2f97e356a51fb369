// AST → canonical SQL. Keywords upper case, identifiers quoted only when needed, expressions
// parenthesized exactly where the parser's precedence (parser.ts `Prec`) requires it, so that
// parse(print(ast)) reproduces ast (modulo spans) and print is a fixpoint on its own output.

import type * as A from './ast.js'
import { Prec } from './parser.js'
import { reservedWords } from './tokens.js'

// ---------------------------------------------------------------------------------- atoms

const SIMPLE_IDENT = /^[a-z_][a-z0-9_$]*$/

export function quoteIdent(name: string): string {
  if (SIMPLE_IDENT.test(name) && !reservedWords.has(name)) return name
  return `"${name.replace(/"/g, '""')}"`
}

export function quoteString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`
}

function printName(n: A.Name): string {
  return n.parts.map(quoteIdent).join('.')
}

function identList(names: readonly string[]): string {
  return `(${names.map(quoteIdent).join(', ')})`
}

/** A word that was a keyword or identifier in the source: upper case if that re-lexes to the
 *  same word, quoted otherwise. */
function printWord(w: string): string {
  return SIMPLE_IDENT.test(w) ? w.toUpperCase() : `"${w.replace(/"/g, '""')}"`
}

// ---------------------------------------------------------------------------------- types

const typeSpelling: Record<string, string> = {
  boolean: 'BOOLEAN',
  smallint: 'SMALLINT',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  real: 'REAL',
  double: 'DOUBLE PRECISION',
  numeric: 'NUMERIC',
  text: 'TEXT',
  varchar: 'VARCHAR',
  char: 'CHAR',
  date: 'DATE',
  time: 'TIME',
  timestamp: 'TIMESTAMP',
  timestamptz: 'TIMESTAMPTZ',
  interval: 'INTERVAL',
}

export function printTypeName(t: A.TypeName): string {
  const base = typeSpelling[t.name] ?? quoteIdent(t.name)
  return (t.args.length > 0 ? `${base}(${t.args.join(', ')})` : base) + '[]'.repeat(t.arrayDimensions ?? 0)
}

// ---------------------------------------------------------------------------------- expressions

function binaryPrec(op: A.BinaryOp): number {
  switch (op) {
    case 'or':
      return Prec.or
    case 'and':
      return Prec.and
    case 'is distinct from':
    case 'is not distinct from':
      return Prec.is
    case '=':
    case '<>':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return Prec.cmp
    case '+':
    case '-':
      return Prec.add
    case '*':
    case '/':
    case '%':
      return Prec.mul
    case '^':
      return Prec.exp
    default:
      return Prec.other
  }
}

function exprPrec(e: A.Expr): number {
  switch (e.kind) {
    case 'binary':
      return binaryPrec(e.op)
    case 'unary':
      return e.op === 'not' ? Prec.not : Prec.unary
    case 'is':
      return Prec.is
    case 'between':
    case 'inList':
    case 'inSubquery':
    case 'like':
      return Prec.like
    case 'cast':
      return e.shorthand ? Prec.cast : Prec.primary
    case 'quantified':
      return Prec.cmp
    default:
      return Prec.primary
  }
}

export function printExpr(e: A.Expr): string {
  return expr(e, 0)
}

function expr(e: A.Expr, minPrec: number): string {
  const s = exprRaw(e)
  return exprPrec(e) < minPrec ? `(${s})` : s
}

function exprs(list: readonly A.Expr[]): string {
  return list.map((x) => expr(x, 0)).join(', ')
}

/** Function names that the grammar parses specially when followed by `(`. */
const specialCallNames = new Set(['row', 'extract', 'trim', 'position', 'substring'])
const bareKeywordFunctions = new Set(['current_date', 'current_timestamp', 'current_time', 'localtimestamp', 'localtime'])

function funcName(name: readonly string[]): string {
  if (name.length === 1) {
    const n = name[0]!
    if (n === 'left' || n === 'right') return n
    if (specialCallNames.has(n)) return `"${n}"`
  }
  return name.map(quoteIdent).join('.')
}

function isPlainCall(f: A.FuncCall): boolean {
  return !f.distinct && f.orderBy.length === 0 && f.withinGroup === undefined && f.filter === undefined && f.over === undefined
}

function printFunc(f: A.FuncCall): string {
  if (f.name.length === 1 && isPlainCall(f)) {
    const n = f.name[0]!
    if (bareKeywordFunctions.has(n) && f.args.length === 0) return n.toUpperCase()
    if (n === 'position' && f.args.length === 2) {
      return `POSITION(${expr(f.args[1]!, Prec.other)} IN ${expr(f.args[0]!, 0)})`
    }
    if (n === 'substring' && (f.args.length === 2 || f.args.length === 3)) {
      const forPart = f.args.length === 3 ? ` FOR ${expr(f.args[2]!, 0)}` : ''
      return `SUBSTRING(${expr(f.args[0]!, 0)} FROM ${expr(f.args[1]!, 0)}${forPart})`
    }
  }
  let args: string
  if (f.args.length === 1 && f.args[0]!.kind === 'star' && f.args[0]!.qualifier === undefined) args = '*'
  else args = (f.distinct ? 'DISTINCT ' : '') + exprs(f.args)
  if (f.orderBy.length > 0) args += ` ORDER BY ${orderItems(f.orderBy)}`
  let s = `${funcName(f.name)}(${args})`
  if (f.withinGroup !== undefined) s += ` WITHIN GROUP (ORDER BY ${orderItems(f.withinGroup)})`
  if (f.filter !== undefined) s += ` FILTER (WHERE ${expr(f.filter, 0)})`
  if (f.over !== undefined) s += ` OVER ${f.over.base !== undefined && f.over.partitionBy.length === 0 && f.over.orderBy.length === 0 && f.over.frame === undefined ? quoteIdent(f.over.base) : windowSpec(f.over)}`
  return s
}

function windowSpec(w: A.WindowSpec): string {
  const parts: string[] = []
  if (w.base !== undefined) parts.push(quoteIdent(w.base))
  if (w.partitionBy.length > 0) parts.push(`PARTITION BY ${exprs(w.partitionBy)}`)
  if (w.orderBy.length > 0) parts.push(`ORDER BY ${orderItems(w.orderBy)}`)
  if (w.frame !== undefined) parts.push(`${w.frame.mode.toUpperCase()} BETWEEN ${frameBound(w.frame.start)} AND ${frameBound(w.frame.end)}`)
  return `(${parts.join(' ')})`
}

function frameBound(b: A.FrameBound): string {
  switch (b.kind) {
    case 'unboundedPreceding':
      return 'UNBOUNDED PRECEDING'
    case 'unboundedFollowing':
      return 'UNBOUNDED FOLLOWING'
    case 'currentRow':
      return 'CURRENT ROW'
    case 'preceding':
      return `${expr(b.offset, 0)} PRECEDING`
    case 'following':
      return `${expr(b.offset, 0)} FOLLOWING`
  }
}

function orderItems(items: readonly A.OrderItem[]): string {
  return items
    .map((o) => {
      let s = expr(o.expr, 0)
      if (o.desc) s += ' DESC'
      if (o.nullsFirst !== undefined) s += o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST'
      return s
    })
    .join(', ')
}

function literal(v: A.LiteralValue): string {
  switch (v.type) {
    case 'null':
      return 'NULL'
    case 'boolean':
      return v.value ? 'TRUE' : 'FALSE'
    case 'integer':
    case 'decimal':
      return v.text
    case 'string':
      return quoteString(v.value)
  }
}

function exprRaw(e: A.Expr): string {
  switch (e.kind) {
    case 'literal':
      return literal(e.value)
    case 'column':
      return e.parts.map(quoteIdent).join('.')
    case 'star':
      return e.qualifier === undefined ? '*' : `${e.qualifier.map(quoteIdent).join('.')}.*`
    case 'param':
      return `$${e.index}`
    case 'unary': {
      if (e.op === 'not') return `NOT ${expr(e.operand, Prec.not)}`
      const operand = expr(e.operand, Prec.unary)
      const c = operand[0]
      // keep `- -x` from turning into a `--` comment
      return c === '-' || c === '+' ? `${e.op} ${operand}` : `${e.op}${operand}`
    }
    case 'binary': {
      const p = binaryPrec(e.op)
      const op = e.op === 'or' || e.op === 'and' || p === Prec.is ? e.op.toUpperCase() : e.op
      return `${expr(e.left, p)} ${op} ${expr(e.right, p + 1)}`
    }
    case 'is':
      return `${expr(e.operand, Prec.is)} IS ${e.negated ? 'NOT ' : ''}${e.test.toUpperCase()}`
    case 'between':
      return (
        `${expr(e.operand, Prec.like)} ${e.negated ? 'NOT ' : ''}BETWEEN ${e.symmetric ? 'SYMMETRIC ' : ''}` +
        `${expr(e.low, Prec.like + 1)} AND ${expr(e.high, Prec.like + 1)}`
      )
    case 'inList':
      return `${expr(e.operand, Prec.like)} ${e.negated ? 'NOT ' : ''}IN (${exprs(e.list)})`
    case 'inSubquery':
      return `${expr(e.operand, Prec.like)} ${e.negated ? 'NOT ' : ''}IN (${printQuery(e.query)})`
    case 'like': {
      const op = e.caseInsensitive ? 'ILIKE' : 'LIKE'
      const escape = e.escape === undefined ? '' : ` ESCAPE ${expr(e.escape, Prec.like + 1)}`
      return `${expr(e.operand, Prec.like)} ${e.negated ? 'NOT ' : ''}${op} ${expr(e.pattern, Prec.like + 1)}${escape}`
    }
    case 'exists':
      return `EXISTS (${printQuery(e.query)})`
    case 'subquery':
      return `(${printQuery(e.query)})`
    case 'case': {
      let s = 'CASE'
      if (e.operand !== undefined) s += ` ${expr(e.operand, 0)}`
      for (const w of e.whens) s += ` WHEN ${expr(w.when, 0)} THEN ${expr(w.then, 0)}`
      if (e.else !== undefined) s += ` ELSE ${expr(e.else, 0)}`
      return s + ' END'
    }
    case 'cast':
      return e.shorthand
        ? `${expr(e.operand, Prec.cast)}::${printTypeName(e.type)}`
        : `CAST(${expr(e.operand, 0)} AS ${printTypeName(e.type)})`
    case 'extract':
      return `EXTRACT(${SIMPLE_IDENT.test(e.field) ? e.field.toUpperCase() : quoteString(e.field)} FROM ${expr(e.operand, 0)})`
    case 'func':
      return printFunc(e)
    case 'row':
      return e.explicit || e.items.length < 2 ? `ROW(${exprs(e.items)})` : `(${exprs(e.items)})`
    case 'interval': {
      let s = `INTERVAL ${quoteString(e.value)}`
      if (e.unit !== undefined) s += ` ${e.unit.toUpperCase()}`
      if (e.toUnit !== undefined) s += ` TO ${e.toUnit.toUpperCase()}`
      return s
    }
    case 'typedLiteral':
      return `${printTypeName(e.type)} ${quoteString(e.value)}`
    case 'array':
      return `ARRAY${arrayItems(e)}`
    case 'arraySubquery':
      return `ARRAY(${printQuery(e.query)})`
    case 'subscript':
      // PostgreSQL subscripts a column or a parenthesized expression only
      return `${e.operand.kind === 'column' ? expr(e.operand, Prec.primary) : `(${expr(e.operand, 0)})`}[${expr(e.index, 0)}]`
    case 'quantified': {
      const list = e.query !== undefined ? printQuery(e.query) : expr(e.array!, 0)
      return `${expr(e.operand, Prec.cmp)} ${e.op} ${e.quantifier.toUpperCase()} (${list})`
    }
  }
}

/** `[a, b]` of an ARRAY constructor, nested lists without the ARRAY keyword. */
function arrayItems(e: A.ArrayExpr): string {
  return `[${e.items.map((i) => (i.kind === 'array' ? arrayItems(i) : expr(i, 0))).join(', ')}]`
}

// ---------------------------------------------------------------------------------- queries

export function printQuery(q: A.Query): string {
  let s = ''
  if (q.with.length > 0) {
    s += `WITH ${q.recursive ? 'RECURSIVE ' : ''}`
    s += q.with
      .map((c) => `${quoteIdent(c.name)}${c.columns.length > 0 ? identList(c.columns) : ''} AS (${printQuery(c.query)})`)
      .join(', ')
    s += ' '
  }
  s += queryBody(q.body)
  if (q.orderBy.length > 0) s += ` ORDER BY ${orderItems(q.orderBy)}`
  if (q.withTies) {
    // the standard's order: OFFSET before FETCH (LIMIT has no WITH TIES)
    if (q.offset !== undefined) s += ` OFFSET ${expr(q.offset, 0)} ROWS`
    s += ` FETCH FIRST ${q.limit!.kind === 'literal' ? expr(q.limit!, 0) : `(${expr(q.limit!, 0)})`} ROWS WITH TIES`
  } else {
    if (q.limit !== undefined) s += ` LIMIT ${expr(q.limit, 0)}`
    if (q.offset !== undefined) s += ` OFFSET ${expr(q.offset, 0)}`
  }
  if (q.emitOnWindowClose) s += ' EMIT ON WINDOW CLOSE'
  return s
}

function setOpPrec(b: A.QueryBody): number {
  if (b.kind !== 'setOp') return 3
  return b.op === 'intersect' ? 2 : 1
}

function queryBody(b: A.QueryBody): string {
  switch (b.kind) {
    case 'select':
      return selectBody(b)
    case 'values':
      return valuesBody(b)
    case 'nested':
      return `(${printQuery(b.query)})`
    case 'setOp': {
      const p = setOpPrec(b)
      const left = setOpPrec(b.left) < p ? `(${queryBody(b.left)})` : queryBody(b.left)
      const right = setOpPrec(b.right) <= p ? `(${queryBody(b.right)})` : queryBody(b.right)
      return `${left} ${b.op.toUpperCase()}${b.all ? ' ALL' : ''} ${right}`
    }
  }
}

function valuesBody(v: A.ValuesBody): string {
  return `VALUES ${v.rows.map((r) => `(${exprs(r)})`).join(', ')}`
}

function selectItems(items: readonly A.SelectItem[]): string {
  return items.map((i) => (i.alias === undefined ? expr(i.expr, 0) : `${expr(i.expr, 0)} AS ${quoteIdent(i.alias)}`)).join(', ')
}

function selectBody(b: A.SelectBody): string {
  let s = 'SELECT '
  if (b.distinct) {
    s += 'DISTINCT '
    if (b.distinctOn !== undefined) s += `ON (${exprs(b.distinctOn)}) `
  }
  s += selectItems(b.items)
  if (b.from !== undefined) s += ` FROM ${tableRef(b.from)}`
  if (b.where !== undefined) s += ` WHERE ${expr(b.where, 0)}`
  if (b.groupBy.length > 0) s += ` GROUP BY ${b.groupByDistinct === true ? 'DISTINCT ' : ''}${groupByItems(b.groupBy)}`
  if (b.having !== undefined) s += ` HAVING ${expr(b.having, 0)}`
  if (b.windows !== undefined) s += ` WINDOW ${b.windows.map((w) => `${quoteIdent(w.name)} AS ${windowSpec(w.spec)}`).join(', ')}`
  return s
}

function groupByItems(items: readonly A.GroupByItem[]): string {
  return items.map(groupByItem).join(', ')
}

function groupByItem(g: A.GroupByItem): string {
  if (g.kind === 'row' && !g.explicit && g.items.length === 0) return '()'
  if (g.kind !== 'groupingSets') return expr(g, 0)
  const head = g.form === 'rollup' ? 'ROLLUP' : g.form === 'cube' ? 'CUBE' : 'GROUPING SETS'
  return `${head} (${groupByItems(g.elements)})`
}

function tableAlias(a: A.TableAlias | undefined): string {
  if (a === undefined) return ''
  return ` AS ${quoteIdent(a.name)}${a.columns.length > 0 ? identList(a.columns) : ''}`
}

function tableFunctionArg(a: A.TableFunctionArg): string {
  switch (a.kind) {
    case 'expr':
      return expr(a.expr, 0)
    case 'table':
      if (a.partitionBy.length === 0) return `TABLE ${printName(a.name)}`
      if (a.partitionBy.length === 1) return `TABLE ${printName(a.name)} PARTITION BY ${expr(a.partitionBy[0]!, 0)}`
      return `TABLE ${printName(a.name)} PARTITION BY (${exprs(a.partitionBy)})`
    case 'descriptor':
      return `DESCRIPTOR${identList(a.columns)}`
  }
}

const joinWords: Record<A.JoinType, string> = {
  inner: 'JOIN',
  left: 'LEFT JOIN',
  right: 'RIGHT JOIN',
  full: 'FULL JOIN',
  cross: 'CROSS JOIN',
  asof: 'ASOF JOIN',
  'asof left': 'ASOF LEFT JOIN',
}

function tableRef(t: A.TableRef): string {
  switch (t.kind) {
    case 'table': {
      const asOf = t.asOf === undefined ? '' : ` FOR SYSTEM_TIME AS OF ${expr(t.asOf, 0)}`
      return `${printName(t.name)}${asOf}${tableAlias(t.alias)}`
    }
    case 'subquery':
      return `${t.lateral ? 'LATERAL ' : ''}(${printQuery(t.query)})${tableAlias(t.alias)}`
    case 'values':
      return `(${valuesBody(t.values)})${tableAlias(t.alias)}`
    case 'function':
      return `${funcName(t.name)}(${t.args.map(tableFunctionArg).join(', ')})${tableAlias(t.alias)}`
    case 'join': {
      if (t.comma) {
        const right = t.right.kind === 'join' && t.right.comma ? `(${tableRef(t.right)})` : tableRef(t.right)
        return `${tableRef(t.left)}, ${right}`
      }
      const left = t.left.kind === 'join' && t.left.comma ? `(${tableRef(t.left)})` : tableRef(t.left)
      const right = t.right.kind === 'join' ? `(${tableRef(t.right)})` : tableRef(t.right)
      const word = t.natural ? `NATURAL ${t.type === 'inner' ? 'JOIN' : joinWords[t.type]}` : joinWords[t.type]
      let s = `${left} ${word} ${right}`
      if (t.on !== undefined) s += ` ON ${expr(t.on, 0)}`
      else if (t.using !== undefined) s += ` USING ${identList(t.using)}`
      return s
    }
  }
}

// ---------------------------------------------------------------------------------- statements

function withOptions(opts: readonly A.WithOption[]): string {
  const one = (o: A.WithOption): string => {
    const name = o.name.split('.').map(quoteIdent).join('.')
    return o.value === undefined ? name : `${name} = ${expr(o.value, 0)}`
  }
  return `(${opts.map(one).join(', ')})`
}

function columnDef(c: A.ColumnDef): string {
  let s = `${quoteIdent(c.name)} ${printTypeName(c.type)}`
  if (c.default !== undefined) s += ` DEFAULT ${expr(c.default, Prec.other)}`
  if (c.notNull) s += ' NOT NULL'
  if (c.primaryKey) s += ' PRIMARY KEY'
  if (c.unique) s += ' UNIQUE'
  return s
}

function createTable(s: A.CreateTableStmt): string {
  const asStream = s.stream && !s.appendOnly
  let out = `CREATE ${asStream ? 'STREAM' : 'TABLE'} ${s.ifNotExists ? 'IF NOT EXISTS ' : ''}${printName(s.name)}`
  const elements = s.columns.map(columnDef)
  if (s.primaryKey !== undefined) elements.push(`PRIMARY KEY ${identList(s.primaryKey)}`)
  if (s.watermark !== undefined) {
    elements.push(`WATERMARK FOR ${quoteIdent(s.watermark.column)} AS ${expr(s.watermark.expr, 0)}`)
  }
  if (elements.length > 0 || s.asQuery === undefined) out += ` (${elements.join(', ')})`
  if (s.appendOnly) out += ' APPEND ONLY'
  if (s.with.length > 0) out += ` WITH ${withOptions(s.with)}`
  if (s.asQuery !== undefined) out += ` AS ${printQuery(s.asQuery)}`
  return out
}

function assignments(set: readonly A.Assignment[]): string {
  return set.map((a) => `${quoteIdent(a.column)} = ${expr(a.value, 0)}`).join(', ')
}

function explainViewName(s: A.Statement): A.Name | undefined {
  if (s.kind !== 'select') return undefined
  const b = s.query.body
  if (b.kind !== 'select' || b.from === undefined || b.from.kind !== 'table') return undefined
  return b.from.name
}

/** COPY in Postgres' current form: options as `WITH (NAME value, …)` (old bare forms print
 *  as their list equivalents). */
function printSession(c: A.SessionCommand): string {
  switch (c.type) {
    case 'declare':
      return `DECLARE ${quoteIdent(c.name)} CURSOR FOR ${c.query !== undefined ? printQuery(c.query) : printStatement(c.subscribe!)}`
    case 'fetch':
      return `FETCH ${c.count ?? 'ALL'} FROM ${quoteIdent(c.name)}${c.options.length > 0 ? ` WITH ${withOptions(c.options)}` : ''}`
    case 'close':
      return `CLOSE ${c.name === undefined ? 'ALL' : quoteIdent(c.name)}`
    case 'reset':
      return `RESET ${c.name === undefined ? 'ALL' : c.name.split('.').map(quoteIdent).join('.')}`
    case 'deallocate':
      return `DEALLOCATE ${c.name === undefined ? 'ALL' : quoteIdent(c.name)}`
    case 'discard':
      return 'DISCARD ALL'
    case 'unlisten':
      return 'UNLISTEN *'
  }
}

function printCopy(s: A.CopyStmt): string {
  let out = 'COPY '
  if (s.query !== undefined) out += `(${printQuery(s.query)})`
  else if (s.subscribe !== undefined) out += `(${printStatement(s.subscribe)})`
  else if (s.table !== undefined) out += printName(s.table)
  if (s.columns !== undefined) out += ` ${identList(s.columns)}`
  out += s.direction === 'from' ? ' FROM ' : ' TO '
  out += s.file !== undefined ? quoteString(s.file) : s.direction === 'from' ? 'STDIN' : 'STDOUT'
  if (s.options.length === 0) return out
  const option = (o: A.CopyOption): string => {
    const v = o.value
    if (v === undefined) return printWord(o.name)
    const value = v.kind === 'string' ? quoteString(v.text) : v.kind === 'number' ? v.text : SIMPLE_IDENT.test(v.text) ? v.text : `"${v.text.replace(/"/g, '""')}"`
    return `${printWord(o.name)} ${value}`
  }
  return `${out} WITH (${s.options.map(option).join(', ')})`
}

export function printStatement(s: A.Statement): string {
  switch (s.kind) {
    case 'select':
      return printQuery(s.query)
    case 'insert': {
      const verb = s.replaceInto ? 'REPLACE' : s.or !== undefined ? `INSERT OR ${s.or.toUpperCase()}` : 'INSERT'
      let out = `${verb} INTO ${printName(s.table)}`
      if (s.columns !== undefined) out += ` ${identList(s.columns)}`
      out += ` ${printQuery(s.source)}`
      if (s.onConflict !== undefined) {
        const oc = s.onConflict
        out += ' ON CONFLICT'
        if (oc.target.length > 0) out += ` ${identList(oc.target)}`
        if (oc.set === undefined) out += ' DO NOTHING'
        else {
          out += ` DO UPDATE SET ${assignments(oc.set)}`
          if (oc.where !== undefined) out += ` WHERE ${expr(oc.where, 0)}`
        }
      }
      if (s.returning !== undefined) out += ` RETURNING ${selectItems(s.returning)}`
      return out
    }
    case 'update': {
      let out = `UPDATE ${printName(s.table)}`
      if (s.alias !== undefined) out += ` AS ${quoteIdent(s.alias)}`
      out += ` SET ${assignments(s.set)}`
      if (s.from !== undefined) out += ` FROM ${tableRef(s.from)}`
      if (s.where !== undefined) out += ` WHERE ${expr(s.where, 0)}`
      return out
    }
    case 'delete': {
      let out = `DELETE FROM ${printName(s.table)}`
      if (s.alias !== undefined) out += ` AS ${quoteIdent(s.alias)}`
      if (s.where !== undefined) out += ` WHERE ${expr(s.where, 0)}`
      return out
    }
    case 'createTable':
      return createTable(s)
    case 'createView': {
      let out = 'CREATE '
      if (s.orReplace) out += 'OR REPLACE '
      if (s.materialized) out += 'MATERIALIZED '
      out += 'VIEW '
      if (s.ifNotExists) out += 'IF NOT EXISTS '
      out += printName(s.name)
      if (s.columns.length > 0) out += ` ${identList(s.columns)}`
      return `${out} AS ${printQuery(s.query)}`
    }
    case 'createIndex': {
      if (s.columns.length === 0 && s.name === undefined && !s.unique && !s.ifNotExists) {
        return `CREATE DEFAULT INDEX ON ${printName(s.table)}`
      }
      let out = `CREATE ${s.unique ? 'UNIQUE ' : ''}INDEX `
      if (s.ifNotExists) out += 'IF NOT EXISTS '
      if (s.name !== undefined) out += `${quoteIdent(s.name)} `
      out += `ON ${printName(s.table)}`
      if (s.columns.length > 0) out += ` (${exprs(s.columns)})`
      return out
    }
    case 'drop':
      return (
        `DROP ${s.object.toUpperCase()} ${s.ifExists ? 'IF EXISTS ' : ''}` +
        `${s.names.map(printName).join(', ')}${s.cascade ? ' CASCADE' : ''}`
      )
    case 'transaction':
      return s.action.toUpperCase()
    case 'explain': {
      let out = 'EXPLAIN '
      if (s.verbose) out += 'VERBOSE '
      if (s.stage === 'view' || s.stage === 'analyze') {
        const name = explainViewName(s.statement)
        if (name !== undefined) return `${out}${s.stage === 'analyze' ? 'ANALYZE ' : ''}MATERIALIZED VIEW ${printName(name)}`
      }
      if (s.stage !== undefined) out += `${s.stage.toUpperCase()} `
      return out + printStatement(s.statement)
    }
    case 'show':
      return `SHOW ${s.what.map(printWord).join(' ')}${s.target === undefined ? '' : ` ${printName(s.target)}`}`
    case 'set':
      if (s.name.includes(' ') || s.name === 'role') return `SET ${s.name.toUpperCase()} ${s.value ?? 'DEFAULT'}`
      return `SET ${s.name.split('.').map(quoteIdent).join('.')} = ${s.value === undefined ? 'DEFAULT' : quoteString(s.value)}`
    case 'session':
      return printSession(s.command)
    case 'flush':
      return 'FLUSH'
    case 'checkpoint':
      return 'CHECKPOINT'
    case 'reindex':
      return `REINDEX${s.object === undefined ? '' : ` ${s.object.toUpperCase()}`}${s.name === undefined ? '' : ` ${printName(s.name)}`}`
    case 'createTrigger': {
      let out = `CREATE TRIGGER ${s.ifNotExists ? 'IF NOT EXISTS ' : ''}${printName(s.name)}`
      if (s.timing !== undefined) out += ` ${s.timing.toUpperCase()}`
      out += ` ${s.event.toUpperCase()}`
      if (s.columns.length > 0) out += ` OF ${s.columns.map(quoteIdent).join(', ')}`
      out += ` ON ${printName(s.table)}`
      if (s.forEachRow) out += ' FOR EACH ROW'
      if (s.when !== undefined) out += ` WHEN ${expr(s.when, 0)}`
      return `${out} BEGIN ${s.body.map((b) => `${printStatement(b)};`).join(' ')} END`
    }
    case 'copy':
      return printCopy(s)
    case 'subscribe': {
      let out = 'SUBSCRIBE '
      if (s.query !== undefined) out += `(${printQuery(s.query)})`
      else if (s.target !== undefined) out += printName(s.target)
      if (s.with.length > 0) out += ` WITH ${withOptions(s.with)}`
      return out
    }
    case 'createSource':
      return `CREATE SOURCE ${s.ifNotExists ? 'IF NOT EXISTS ' : ''}${printName(s.name)} WITH ${withOptions(s.with)}`
    case 'createSchema':
      return `CREATE SCHEMA ${s.ifNotExists ? 'IF NOT EXISTS ' : ''}${quoteIdent(s.name)}`
    case 'alterTable':
      return `ALTER TABLE ${s.ifExists ? 'IF EXISTS ' : ''}${printName(s.table)} ${s.actions.map(alterAction).join(', ')}`
    case 'truncate':
      return `TRUNCATE ${s.tables.map(printName).join(', ')}`
    case 'createSink': {
      const what = s.query !== undefined ? `AS ${printQuery(s.query)}` : `FROM ${printName(s.from!)}`
      return `CREATE SINK ${s.ifNotExists ? 'IF NOT EXISTS ' : ''}${printName(s.name)} ${what} WITH ${withOptions(s.with)}`
    }
  }
}

function alterAction(a: A.AlterTableAction): string {
  switch (a.kind) {
    case 'addColumn':
      return `ADD COLUMN ${a.ifNotExists ? 'IF NOT EXISTS ' : ''}${columnDef(a.column)}`
    case 'dropColumn':
      return `DROP COLUMN ${a.ifExists ? 'IF EXISTS ' : ''}${quoteIdent(a.column)}${a.cascade ? ' CASCADE' : ''}`
    case 'renameColumn':
      return `RENAME COLUMN ${quoteIdent(a.column)} TO ${quoteIdent(a.to)}`
    case 'renameTable':
      return `RENAME TO ${quoteIdent(a.to)}`
  }
}
