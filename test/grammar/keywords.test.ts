// The printer leaves non-reserved keywords unquoted when they are used as names; this checks
// that the result still parses to the same AST in every name position, for every keyword.

import { describe, expect, it } from 'vitest'
import { keywordMap } from '../../grammar/tokens.js'
import { parse, printStatement } from '../../grammar/index.js'
import { stripSpans } from './helpers.js'

const templates = [
  'SELECT "@", "@" AS "@", "@"."@", "@"("@"), count("@") FILTER (WHERE "@") FROM "@" AS "@"("@") WHERE "@" = 1',
  'SELECT * FROM "@" JOIN "@" FOR SYSTEM_TIME AS OF "@" AS "@" ON "@" JOIN "@" USING ("@")',
  'SELECT * FROM "@"."@"(TABLE "@" PARTITION BY "@", DESCRIPTOR("@"), "@") AS "@"',
  'WITH "@"("@") AS (SELECT 1) SELECT "@" FROM "@" ORDER BY "@" DESC, "@" NULLS FIRST',
  'SELECT CASE "@" WHEN "@" THEN "@" END, "@" IS NULL, "@" BETWEEN "@" AND "@", "@" IN ("@"), "@"::"@", CAST("@" AS "@")',
  'SELECT "@" FROM "@" GROUP BY "@" HAVING "@" > 0 LIMIT "@" OFFSET "@"',
  'INSERT INTO "@"."@" ("@", "@") SELECT "@" FROM "@" ON CONFLICT ("@") DO UPDATE SET "@" = "@" RETURNING "@" AS "@"',
  'UPDATE "@" AS "@" SET "@" = "@" FROM "@" WHERE "@"',
  'DELETE FROM "@" AS "@" WHERE "@"',
  'CREATE TABLE "@"."@" ("@" "@" DEFAULT "@" NOT NULL, "@" INTEGER, PRIMARY KEY ("@"), WATERMARK FOR "@" AS "@") WITH ("@" = "@")',
  'CREATE MATERIALIZED VIEW "@" ("@") AS SELECT "@" FROM "@"',
  'CREATE INDEX "@" ON "@" ("@")',
  'DROP VIEW "@", "@"',
  'SUBSCRIBE "@" WITH ("@" = "@")',
  'SHOW CREATE VIEW "@"',
  'SET "@" = "@"',
  'EXPLAIN MATERIALIZED VIEW "@"',
  'REPLACE INTO "@"."@" ("@") SELECT "@" FROM "@"',
  'INSERT OR IGNORE INTO "@" VALUES ("@") ON CONFLICT ("@") DO NOTHING',
  'CREATE TRIGGER "@"."@" AFTER UPDATE OF "@", "@" ON "@"."@" FOR EACH ROW WHEN "@" BEGIN SELECT "@" FROM "@"; END',
  'CREATE TRIGGER "@" DELETE ON "@" WHEN "@"."@" BEGIN SELECT "@"; SELECT "@"; END',
  'DROP TRIGGER "@", "@"',
  'REINDEX "@"."@"',
  'REINDEX INDEX "@"',
  'REINDEX TABLE "@"',
]

describe('keywords used as names survive printing', () => {
  const words = [...keywordMap.keys()]
  it.each(templates)('%s', (template) => {
    for (const w of words) {
      const sql = template.replaceAll('@', w)
      const ast = parse(sql)[0]!.statement
      const printed = printStatement(ast)
      let again
      try {
        again = parse(printed)[0]!.statement
      } catch (e) {
        throw new Error(`${w}: ${printed}: ${(e as Error).message}`)
      }
      expect(stripSpans(again), `${w}: ${printed}`).toEqual(stripSpans(ast))
      expect(printStatement(again)).toBe(printed)
    }
  })
})
