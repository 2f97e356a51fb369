// EXPLAIN's lines fitted to a terminal. An operator's line carries its annotations after it
// (`  // state: …` from the planner, `  [op 12: …]` / `  [state: …]` for a live view); on a
// terminal narrower than such a line, each annotation goes on a line of its own under the
// operator, indented two more than it, so the tree's shape stays readable: operator lines
// start with a name, annotation lines with `//` or `[`. Lines that fit, and an operator's own
// text however long, are left as they are (EXPLAIN's text over the wire never changes).

const ANNOTATION = /  (?=\/\/ |\[(?:op \d|state:|rows:))/g

export function fitPlanLines(lines: readonly string[], width: number): string[] {
  const out: string[] = []
  for (const line of lines) {
    if (displayLength(line) <= width) {
      out.push(line)
      continue
    }
    const parts = line.split(ANNOTATION)
    if (parts.length === 1) {
      out.push(line)
      continue
    }
    const indent = ' '.repeat(line.length - line.trimStart().length + 2)
    out.push(parts[0]!)
    for (const a of parts.slice(1)) out.push(indent + a)
  }
  return out
}

function displayLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}
