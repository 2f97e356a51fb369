// `npm run slt:sqlite [-- [OPTIONS] [PATH...]]`: runs a checkout of SQLite's sqllogictest corpus
// (the folder in RIVULET_SQLITE_CORPUS) with `rivulet slt --mode both --summary`; PATHs given on
// the command line replace it, OPTIONS (e.g. --churn, --mode ivm) are passed on.
import { spawnSync } from 'node:child_process'

const args = process.argv.slice(2)
// A path is an argument that is not an option and not the value of --mode.
const hasPath = args.some((a, i) => !a.startsWith('-') && args[i - 1] !== '--mode')
const corpus = process.env.RIVULET_SQLITE_CORPUS
if (!hasPath && !corpus) {
  console.error('slt:sqlite: set RIVULET_SQLITE_CORPUS to a checkout of the corpus, or give PATHs')
  process.exit(2)
}
const paths = hasPath ? [] : [corpus]
const r = spawnSync(process.execPath, ['dist/src/cli/cli.js', 'slt', '--mode', 'both', '--summary', ...args, ...paths], { stdio: 'inherit' })
process.exitCode = r.status ?? 1
