// Type modifiers: NUMERIC(p, s), VARCHAR(n), CHAR(n) — read from a type name (columns and
// casts) and applied to a bound expression as a call the run time enforces (src/sql-runtime/values.ts
// applyTypeModifier): NUMERIC rounds to s decimals and refuses more than p − s digits before
// the point; VARCHAR refuses more than n characters and CHAR pads to n — except in an
// explicit cast, which cuts the text to n as PostgreSQL does.

import type * as ast from '../../grammar/index.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { lit } from '../expr/scalar.js'
import { planError, SqlState, type ErrorContext } from '../errors.js'
import type { SqlType, TypeModifier } from '../types.js'

/** The function id of each modifier's check (implemented in src/sql-runtime/functions.ts). */
export const TYPE_MODIFIER_FUNCTIONS = { numeric: 'typmod_numeric', varchar: 'typmod_varchar', char: 'typmod_char' } as const

/** PostgreSQL's bounds on declared lengths and precisions. */
const MAX_NUMERIC_PRECISION = 1000
const MAX_CHAR_LENGTH = 10485760

/** The modifier a type name declares (undefined for none); CHAR without a length is CHAR(1). */
export function typeModifierOf(name: ast.TypeName, t: SqlType, err: ErrorContext): TypeModifier | undefined {
  // the elements of an array keep their type without its modifier (not enforced here)
  if ((name.arrayDimensions ?? 0) > 0) return undefined
  const args = name.args
  if (name.name === 'numeric') {
    if (args.length === 0) return undefined
    if (args.length > 2) throw planError(err, SqlState.syntaxError, 'invalid NUMERIC type modifier', name.span)
    const precision = args[0]!
    const scale = args[1] ?? 0
    if (!(precision >= 1 && precision <= MAX_NUMERIC_PRECISION)) {
      throw planError(err, SqlState.invalidParameterValue, `NUMERIC precision ${precision} must be between 1 and ${MAX_NUMERIC_PRECISION}`, name.span)
    }
    if (!(scale >= -MAX_NUMERIC_PRECISION && scale <= MAX_NUMERIC_PRECISION)) {
      throw planError(err, SqlState.invalidParameterValue, `NUMERIC scale ${scale} must be between -${MAX_NUMERIC_PRECISION} and ${MAX_NUMERIC_PRECISION}`, name.span)
    }
    return { kind: 'numeric', precision, scale }
  }
  if (name.name === 'varchar' || name.name === 'char') {
    const spelled = name.name === 'varchar' ? 'varchar' : 'char'
    if (args.length > 1) throw planError(err, SqlState.syntaxError, `invalid type modifier for ${spelled}`, name.span)
    if (args.length === 0) return name.name === 'char' ? { kind: 'char', length: 1 } : undefined
    const length = args[0]!
    if (length < 1) throw planError(err, SqlState.invalidParameterValue, `length for type ${spelled} must be at least 1`, name.span)
    if (length > MAX_CHAR_LENGTH) throw planError(err, SqlState.invalidParameterValue, `length for type ${spelled} cannot exceed ${MAX_CHAR_LENGTH}`, name.span)
    return { kind: name.name, length }
  }
  if (args.length > 0 && t !== 'timestamp' && t !== 'timestamptz' && t !== 'time' && t !== 'interval') {
    throw planError(err, SqlState.syntaxError, `type modifier is not allowed for type "${name.name}"`, name.span)
  }
  return undefined
}

/** `e` (already of the modifier's base type) with the modifier enforced. */
export function withTypeModifier(e: ScalarExpr, m: TypeModifier | undefined, explicit: boolean): ScalarExpr {
  if (m === undefined) return e
  if (e.kind === 'literal' && e.value === null) return e
  switch (m.kind) {
    case 'numeric':
      return { kind: 'call', fn: TYPE_MODIFIER_FUNCTIONS.numeric, args: [e, lit(m.precision, 'integer'), lit(m.scale, 'integer')], type: 'numeric' }
    case 'varchar':
      return { kind: 'call', fn: TYPE_MODIFIER_FUNCTIONS.varchar, args: [e, lit(m.length, 'integer'), lit(explicit, 'boolean')], type: 'text' }
    case 'char':
      return { kind: 'call', fn: TYPE_MODIFIER_FUNCTIONS.char, args: [e, lit(m.length, 'integer'), lit(explicit, 'boolean')], type: 'bpchar' }
  }
}
