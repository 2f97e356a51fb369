// What the other rooms (server, repl, cli) and the package entry see of the engine: the Engine
// facade and a session of it. Everything else in src/engine/ is the engine's own.
export { Engine } from './engine.js'
export type { EngineSession } from './transactions.js'
export { recoveryLine } from './durable-log.js'
export { checkSearchPath } from './names.js'
