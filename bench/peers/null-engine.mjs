// The harness's ceiling for W3: the cheapest possible "engine" — a JS Map per (auction, win)
// kept as rows arrive, and reads that parse the keys out of the SQL text. Pointing ENGINE_PATH
// here (with bench/peers/engine.mjs as the adapter) measures what the harness itself costs per
// 1,000-event step; no engine can beat it. W3 only (it ignores every other statement).
export class Engine {
  static open() { return new Engine() }
  constructor() { this.g = new Map() }
  execute() { return [] }
  insert(table, rows) {
    for (const r of rows) {
      const win = Math.floor(r[4] / 10000), k = r[1] * 1e6 + win
      let e = this.g.get(k)
      if (!e) this.g.set(k, (e = [r[1], win, 0, -Infinity]))
      e[2]++; if (r[3] > e[3]) e[3] = r[3]
    }
    return rows.length
  }
  delete() { return 0 }
  query(sql) {
    const i = sql.indexOf('VALUES')
    if (i < 0) return { rows: [...this.g.values()].map((e) => e.slice()) }
    const out = []
    const re = /\((\d+), (\d+)\)/g
    let m
    re.lastIndex = i
    while ((m = re.exec(sql))) { const e = this.g.get(Number(m[1]) * 1e6 + Number(m[2])); if (e) out.push(e.slice()) }
    return { rows: out }
  }
}
