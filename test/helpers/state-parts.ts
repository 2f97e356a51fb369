// Reads and replaces the bytes of an incremental checkpoint's part (state_part rows name a file
// of DIR/parts, an offset and a length), for tests that damage or rewrite one.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type Database from 'better-sqlite3'
import { checksum } from '../../src/storage/codec.js'

interface PartRow {
  readonly owner: string
  readonly ckpt: number
  readonly kind: string
  readonly file: string
  readonly offset: number
  readonly length: number
}

/** The parts of checkpoint `ckpt` (its own file's), with their bytes. */
export function partsOf(db: Database.Database, data: string, ckpt: number): (PartRow & { body: Buffer })[] {
  const rows = db.prepare('SELECT owner, ckpt, kind, file, offset, length FROM state_part WHERE ckpt = ?').all(ckpt) as PartRow[]
  return rows.map((r) => ({ ...r, body: readFileSync(path.join(data, 'parts', r.file)).subarray(r.offset, r.offset + r.length) }))
}

/** Replaces a part's bytes by `body`, in a file of its own; with `fixCrc` false the row keeps
 *  its old CRC (the part reads as damaged). */
export function replacePart(db: Database.Database, data: string, p: PartRow, body: Buffer, fixCrc = true): void {
  const file = `test-${p.ckpt}-${p.kind}-${Math.random().toString(36).slice(2)}.bin`
  writeFileSync(path.join(data, 'parts', file), body)
  if (fixCrc) db.prepare('UPDATE state_part SET file = ?, offset = 0, length = ?, crc = ? WHERE owner = ? AND ckpt = ? AND kind = ?').run(file, body.length, checksum(p.ckpt, body), p.owner, p.ckpt, p.kind)
  else db.prepare('UPDATE state_part SET file = ?, offset = 0, length = ? WHERE owner = ? AND ckpt = ? AND kind = ?').run(file, body.length, p.owner, p.ckpt, p.kind)
}
