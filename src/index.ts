// Public API of the rivulet package.
export { Engine } from './engine/index.js'
export type { EngineSession } from './engine/index.js'
export { RivuletError } from '../grammar/index.js'
export { formatValue } from './sql-runtime/value-text.js'
export type * from './types.js'
