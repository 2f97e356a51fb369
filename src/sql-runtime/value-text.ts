// The Postgres text output form of a result value, as psql and the wire protocol show it.
import type { ResultValue, SqlTypeName } from '../types.js'
import { formatFloat4, formatFloat8 } from './number-text.js'

/** The Postgres text output form of a value: booleans `t`/`f`, floats in the shortest
 *  round-trip form of `float8out`/`float4out`, NULL as ''. (numeric values arrive as their
 *  text already.) */
export function formatValue(v: ResultValue, type: SqlTypeName): string {
  if (v === null) return ''
  if (typeof v === 'boolean') return v ? 't' : 'f'
  if (typeof v === 'string') return v
  if (typeof v === 'bigint') return String(v)
  switch (type) {
    case 'double precision':
      return formatFloat8(v)
    case 'real':
      return formatFloat4(Math.fround(v))
    case 'smallint':
    case 'integer':
    case 'bigint':
      return Number.isInteger(v) ? formatInteger(v) : formatFloat8(v)
    case 'boolean':
      return v !== 0 ? 't' : 'f'
    default:
      return Number.isInteger(v) ? formatInteger(v) : formatFloat8(v)
  }
}

function formatInteger(v: number): string {
  // String(1e21) would switch to exponent form; integers never do in Postgres.
  return Math.abs(v) < 1e21 ? String(v) : BigInt(v).toString()
}
