// Engine: the public entry point (SPEC §1.3). Work in progress — see src/ for the pieces.
import type { ChangeBatch, EngineOptions, InputRow, QueryResult, RelationInfo, StatementResult, SubscribeOptions } from './types.js'

export class Engine {
  static open(options: EngineOptions = {}): Engine {
    return new Engine(options)
  }
  constructor(_options: EngineOptions = {}) {}
  /** Runs one or more statements; returns one result per statement. Throws RivuletError. */
  execute(_sql: string): StatementResult[] {
    throw new Error('not implemented')
  }
  /** Runs the statement(s) and returns the last one's rows. */
  query(_sql: string): QueryResult {
    throw new Error('not implemented')
  }
  subscribe(_view: string, _callback: (batch: ChangeBatch) => void, _options: SubscribeOptions = {}): () => void {
    throw new Error('not implemented')
  }
  insert(_table: string, _rows: readonly InputRow[]): number {
    throw new Error('not implemented')
  }
  delete(_table: string, _rows: readonly InputRow[]): number {
    throw new Error('not implemented')
  }
  /** Tables, streams and views in the catalog (for \d, SHOW, the slt runner). */
  relations(): RelationInfo[] {
    throw new Error('not implemented')
  }
  /** True while a BEGIN ... COMMIT transaction is open. */
  get inTransaction(): boolean {
    return false
  }
  close(): void {}
}
