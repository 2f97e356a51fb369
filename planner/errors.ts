// Planner errors are RivuletErrors with a SQLSTATE and, when the problem is in the SQL text,
// the position of the offending token.

import { RivuletError, SqlState, positionAt, type Span } from '../grammar/index.js'

/** Context for turning spans into positions: the full SQL text the spans index into. */
export interface ErrorContext {
  readonly text: string
}

export function planError(ctx: ErrorContext, code: string, message: string, span?: Span): RivuletError {
  return new RivuletError(code, message, span ? positionAt(ctx.text, span.start) : undefined)
}

export function unsupported(ctx: ErrorContext, what: string, span?: Span): RivuletError {
  return planError(ctx, SqlState.featureNotSupported, `${what} is not supported`, span)
}

export { RivuletError, SqlState }
