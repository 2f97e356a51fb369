// The RivuletError a call throws (its code, message and position are what tests check); any
// other outcome fails the test.
import { RivuletError } from '../../src/index.js'

export function rivuletError(f: () => unknown): RivuletError {
  try {
    f()
  } catch (e) {
    if (e instanceof RivuletError) return e
    throw e
  }
  throw new Error('expected a RivuletError')
}
