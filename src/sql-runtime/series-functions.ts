// generate_series(start, stop [, step]) as the array of its values (the planner unnests it:
// planner/bind/bind-query.ts), for integers, bigints, numerics and timestamps stepped by an
// interval, as PostgreSQL 15: an empty series when the step goes away from stop, 22023 for a
// zero step. A series is built whole, so its length is bounded (54000 past MAX_SERIES).

import { RivuletError } from '../../grammar/index.js'
import { checkInterrupt } from '../../ivm/index.js'
import { ArrayValue, numericAdd, numericCompare, numericDivInteger, numericSign, numericSub, type NumericValue } from '../../planner/index.js'
import type { Interval } from './interval.js'
import { int8Add, type Int8 } from './int8.js'

/** The most values one series may have: each becomes a row of one batch (16M rows take
 *  seconds and gigabytes already). */
export const MAX_SERIES = 2 ** 24

function zeroStep(): RivuletError {
  return new RivuletError('22023', 'step size cannot equal zero')
}

function tooLong(): RivuletError {
  return new RivuletError('54000', `generate_series would produce more than ${MAX_SERIES} values`, undefined, 'Ask for fewer values, or step by more.')
}

function push(out: unknown[], v: unknown): void {
  if (out.length >= MAX_SERIES) throw tooLong()
  // a long series is built inside one call: its statement's deadline and a cancel reach it
  // here (a series of wide numerics can take minutes before MAX_SERIES)
  if ((out.length & 8191) === 8191) checkInterrupt()
  out.push(v)
}

/** Integers and bigints (a bigint beyond ±2^53 is a JS bigint: int8Add keeps it exact). */
function integerSeries(start: Int8, stop: Int8, step: Int8 = 1): ArrayValue {
  if (step === 0 || step === 0n) throw zeroStep()
  const up = step > 0
  const out: unknown[] = []
  for (let v = start; up ? v <= stop : v >= stop; ) {
    push(out, v)
    // past the type's end there is no next value: the series ends (PostgreSQL stops there too)
    try {
      v = int8Add(v, step)
    } catch {
      break
    }
  }
  return new ArrayValue(out)
}

function numericSeries(start: NumericValue, stop: NumericValue, step: NumericValue = 1): ArrayValue {
  const sign = numericSign(step)
  if (sign === 0) throw zeroStep()
  if (start !== start || stop !== stop || step !== step) throw new RivuletError('22023', 'start, stop and step values cannot be NaN')
  const infinite = (v: NumericValue): boolean => typeof v === 'number' && !Number.isFinite(v)
  if (infinite(start)) throw new RivuletError('22023', 'start value cannot be infinity')
  if (infinite(stop)) throw new RivuletError('22023', 'stop value cannot be infinity')
  if (infinite(step)) throw new RivuletError('22023', 'step size cannot be infinity')
  // how many values, known up front: a series of wide numerics too long to build is refused
  // at once (each step of one is an addition of hundreds of digits)
  const steps = numericDivInteger(numericSub(stop, start), step)
  if (numericSign(steps) >= 0 && numericCompare(steps, MAX_SERIES) >= 0) throw tooLong()
  const out: unknown[] = []
  for (let v = start; sign > 0 ? numericCompare(v, stop) <= 0 : numericCompare(v, stop) >= 0; v = numericAdd(v, step)) push(out, v)
  return new ArrayValue(out)
}

export function timestampSeries(start: number, stop: number, step: Interval, add: (ts: number, iv: Interval) => number): ArrayValue {
  const probe = add(0, step)
  if (probe === 0) throw zeroStep()
  const up = probe > 0
  const out: unknown[] = []
  for (let v = start; up ? v <= stop : v >= stop; v = add(v, step)) push(out, v)
  return new ArrayValue(out)
}

/** The implementations; timestamps step by the engine's timestamp + interval. */
export function seriesFunctions(tsAddInterval: (ts: number, iv: Interval) => number): Record<string, (...args: never[]) => unknown> {
  return {
    generate_series_int: integerSeries,
    generate_series_int8: integerSeries,
    generate_series_num: numericSeries,
    generate_series_ts: (a: number, b: number, step: Interval) => timestampSeries(a, b, step, tsAddInterval),
  }
}
