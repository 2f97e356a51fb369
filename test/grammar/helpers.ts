// Shared helpers for the grammar tests.

/** Deep copy without `span` properties (and without undefined-valued keys). */
export function stripSpans<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'span' ? undefined : v)))
}
