// Public API of the incremental runtime. ivm knows no SQL: rows are arrays of opaque values,
// and the planner hands it closures (row functions, predicates, comparators) and key columns.

export { ZSet, concatRows, type Row } from './zset.js'
export { valueKey, rowKey, columnsKey, keyFunction, hasNull, valuesEqual, rowsEqual, compareValues, compareRows, hashValue, rowHash, type RowKey } from './key.js'
export { BaseOperator, LinearOperator, Journal, type Operator } from './operator.js'
export { KeyChanges, ALL_CHANGED, forEachChange, saveKeyedPart, snapshotKeyedPart, fuzzyKeyedBase, drainSnapshot, mergeKeyedParts, type KeyedPart, type KeyedEntries, type KeyedCheckpoint, type KeyedSnapshot, type KeyedChunk, type TakenChanges, type ChangeShares } from './keyed-state.js'
export { Circuit, type OperatorFailure } from './circuit.js'
export { interruptHook, checkInterrupt, countRow, MAX_BATCH_ROWS } from './interrupt.js'
export { lowerBound, upperBound } from './sorted.js'
export { ChunkedRows, CHUNK_MAX } from './chunked-rows.js'
export type { FrameBound, Frame, WindowFunction, WindowOrder } from './window-frames.js'
export * from './operators/index.js'
export * from './aggregators/index.js'
