// Public API of the rivulet package.
export { Engine } from './engine.js'
export type { EngineSession } from './transactions.js'
export { RivuletError } from '../grammar/index.js'
export { formatValue } from './format.js'
export type * from './types.js'
