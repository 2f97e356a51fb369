// The SQL errors the value runtime raises (RivuletErrors with PostgreSQL's SQLSTATEs and
// messages) that more than one of its modules raises: invalid input syntax, out of range,
// division by zero, overflow. One place, so that a message reads the same wherever it comes
// from.

import { RivuletError } from '../../grammar/errors.js'

export function sqlError(code: string, message: string): RivuletError {
  return new RivuletError(code, message)
}
export function invalidSyntax(type: string, text: string): RivuletError {
  const code = type === 'timestamp' || type === 'date' || type === 'interval' || type === 'timestamp with time zone' || type === 'time without time zone' ? '22007' : '22P02'
  return sqlError(code, `invalid input syntax for type ${type}: "${text}"`)
}
export function fieldOutOfRange(text: string): RivuletError {
  return sqlError('22008', `date/time field value out of range: "${text}"`)
}
export function outOfRange(type: 'smallint' | 'integer' | 'bigint'): RivuletError {
  return sqlError('22003', `${type} out of range`)
}
export const divByZero = (): RivuletError => sqlError('22012', 'division by zero')
export const overflow = (): RivuletError => sqlError('22003', 'value out of range: overflow')
export const underflow = (): RivuletError => sqlError('22003', 'value out of range: underflow')
