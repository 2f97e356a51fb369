// `npm run slt:sqlite [-- [OPTIONS] [PATH...]]`: runs the SQLite corpus samples in
// ../shared/sqllogictest/sqlite with `rivulet slt --mode both --summary`; PATHs given on the
// command line replace that default, OPTIONS (e.g. --churn, --mode ivm) are passed on.
import { spawnSync } from 'node:child_process'

const args = process.argv.slice(2)
// A path is an argument that is not an option and not the value of --mode.
const hasPath = args.some((a, i) => !a.startsWith('-') && args[i - 1] !== '--mode')
const paths = hasPath ? [] : ['../shared/sqllogictest/sqlite']
const r = spawnSync(process.execPath, ['dist/src/cli/cli.js', 'slt', '--mode', 'both', '--summary', ...args, ...paths], { stdio: 'inherit' })
process.exitCode = r.status ?? 1
