// Sorted, weighted entries kept as parallel arrays (plain data, so a checkpoint can write them):
// the accumulators of the ordered aggregates (string_agg, array_agg). `update` adds a weight to
// the entry `compare` finds by binary search, inserting it where it belongs or removing it when
// its weight comes to zero.

/** `lists` are the parallel arrays of the entries' fields, `counts` their weights; `compare(i)`
 *  orders entry i against the one being updated (negative: i comes first); `fields` are the
 *  updated entry's values, one per list. */
export function updateWeighted(lists: readonly unknown[][], counts: number[], compare: (i: number) => number, fields: readonly unknown[], weight: number): void {
  let lo = 0
  let hi = counts.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const c = compare(mid)
    if (c < 0) lo = mid + 1
    else if (c > 0) hi = mid - 1
    else {
      const n = counts[mid]! + weight
      if (n !== 0) counts[mid] = n
      else {
        for (const l of lists) l.splice(mid, 1)
        counts.splice(mid, 1)
      }
      return
    }
  }
  for (let i = 0; i < lists.length; i++) lists[i]!.splice(lo, 0, fields[i])
  counts.splice(lo, 0, weight)
}
