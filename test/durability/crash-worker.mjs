// One life of the crash campaign's engine: opens the data directory (recovering), declares the
// schema, and runs the workload's steps from the one after its last acknowledged step, until
// `count`, or until the campaign kills it (SIGKILL). Prints "step N" after each acknowledged
// step (the parent may check that no acknowledged step is lost). Every tenth step also takes a
// checkpoint, so kills land inside checkpoints too and recoveries start from them. Between
// those, checkpoints are in flight, written a few keys at a time after each step (copy on
// write: the steps change what they have yet to write), so kills land while one is in flight
// and while one commits: lives that truncate begin one whenever none is (3 keys a slice, so
// one is in flight nearly always), the others five steps after each CHECKPOINT (a millisecond
// a slice, so most commit on their own). Prints "step N in flight" when one is. Lives of an
// even process id keep no log retention, so each checkpoint truncates the log
// behind the two kept (and kills land inside truncations); the others keep the default hour.
//   node crash-worker.mjs DIR OUT SEED COUNT
import { Engine } from '../../dist/src/index.js'
import { internalsOf } from '../../dist/src/engine/engine.js'
import { CLOCK, runStep, schema, steps } from './workload.mjs'

const [dir, out, seed, count, retention] = process.argv.slice(2)
const truncating = retention === 'truncate'
const db = Engine.open({ dir, sources: 'manual', clock: CLOCK, logRetention: truncating ? 0 : undefined })
for (const s of schema(out)) db.execute(s)
const checkpoints = internalsOf(db).checkpoints
checkpoints.sliceMs = truncating ? 0 : 1
checkpoints.chunkKeys = truncating ? 3 : 64
const done = db.query('SELECT step FROM progress WHERE k = 0').rows[0]?.[0] ?? 0
process.stdout.write(`recovered ${done} from ${db.recovery.checkpoint === null ? 'the start of the log' : `the checkpoint at tick ${db.recovery.checkpoint}`}${truncating ? ' (truncating the log)' : ''}\n`)
const all = steps(Number(seed), Number(count))
for (let i = done + 1; i <= all.length; i++) {
  runStep(db, i, all[i - 1])
  if (i % 10 === 0) db.execute('CHECKPOINT')
  else if (truncating || i % 10 === 5) checkpoints.beginNow()
  process.stdout.write(`step ${i}${checkpoints.inFlight ? ' in flight' : ''}\n`)
}
db.close()
