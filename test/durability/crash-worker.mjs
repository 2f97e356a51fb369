// One life of the crash campaign's engine: opens the data directory (recovering), declares the
// schema, and runs the workload's steps from the one after its last acknowledged step, until
// `count`, or until the campaign kills it (SIGKILL). Prints "step N" after each acknowledged
// step (the parent may check that no acknowledged step is lost). Every tenth step also takes a
// checkpoint, so kills land inside checkpoints too and recoveries start from them. Lives of an
// even process id keep no log retention, so each checkpoint truncates the log
// behind the two kept (and kills land inside truncations); the others keep the default hour.
//   node crash-worker.mjs DIR OUT SEED COUNT
import { Engine } from '../../dist/src/index.js'
import { CLOCK, runStep, schema, steps } from './workload.mjs'

const [dir, out, seed, count, retention] = process.argv.slice(2)
const truncating = retention === 'truncate'
const db = Engine.open({ dir, sources: 'manual', clock: CLOCK, logRetention: truncating ? 0 : undefined })
for (const s of schema(out)) db.execute(s)
const done = db.query('SELECT step FROM progress WHERE k = 0').rows[0]?.[0] ?? 0
process.stdout.write(`recovered ${done} from ${db.recovery.checkpoint === null ? 'the start of the log' : `the checkpoint at tick ${db.recovery.checkpoint}`}${truncating ? ' (truncating the log)' : ''}\n`)
const all = steps(Number(seed), Number(count))
for (let i = done + 1; i <= all.length; i++) {
  runStep(db, i, all[i - 1])
  if (i % 10 === 0) db.execute('CHECKPOINT')
  process.stdout.write(`step ${i}\n`)
}
db.close()
