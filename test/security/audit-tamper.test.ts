/**
 * Property: in a random log of 10,000 events, every single change — a one-byte edit, a
 * deletion, an insertion, a swap of two entries, a truncation — made directly in the database with
 * SQL is found by the database check, and the same by the hourly check from the prefix the intact
 * log's check verified (integrity-prefix.ts); the intact log verifies before and after, and so
 * does its verifiable export. Mutations are sampled by fast-check with a fixed count and seed
 * (every kind, every table that holds the log), so the run time stays bounded; each one is undone
 * before the next. The same changes made in an export file are `verify`'s alone, which reads no
 * database: audit-export-tamper.sqlite.test.ts checks them once, on SQLite.
 *
 * What counts as the log in the database: the events, the tree's nodes and the signed notes of the
 * checkpoints. A checkpoint row *deleted* leaves fewer roots to compare against — what the daily
 * anchoring (a copy outside the server) and `verify --checkpoint` are for — so deletions are drawn
 * from events and tree nodes.
 */
import fc from 'fast-check'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  BATCH,
  checkDatabase,
  checkDatabaseFully,
  type VerifiedPrefix,
} from '../../src/modules/audit/integrity.js'
import { checkSince } from '../../src/modules/audit/integrity-prefix.js'
import { LEAF_COLUMNS } from '../../src/modules/audit/leaf.js'
import { useTestApp } from '../helpers/app.js'
import {
  downloadVerifiableExport,
  verifyExportBytes,
  writeSignedLog,
} from '../helpers/audit-events.js'
import { makeTempDir } from '../helpers/database.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const EVENTS = 10_000
const LONG = 600_000

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))

let size = 0
let key = ''

beforeAll(async () => {
  ;({ size, key } = await writeSignedLog(t, EVENTS))
}, LONG)

const at = async (index: number) =>
  t.deps.db
    .selectFrom('audit_events')
    .selectAll()
    .where('leaf_index', '=', index)
    .executeTakeFirstOrThrow()

/** Runs `check` with the change applied, then undoes it. */
async function withChange(
  apply: () => Promise<() => Promise<void>>,
  check: () => Promise<void>,
): Promise<void> {
  const undo = await apply()
  try {
    await check()
  } finally {
    await undo()
  }
}

describe('the database check finds every change made with SQL', () => {
  /** What the intact log's check verified: where the hourly check starts from. */
  let prefix: VerifiedPrefix | null = null

  const detected = async () => {
    const result = await checkDatabase(t.deps)
    expect(result.ok, 'the change went unnoticed').toBe(false)
    // The hourly check, from the intact log's prefix, finds the same first problem.
    const periodic = await checkSince(t.deps, prefix)
    expect(periodic.result.ok, 'the hourly check missed the change').toBe(false)
    expect(periodic.result.problem).toEqual(result.problem)
    return result.problem!
  }

  it(
    'the intact log of 10,000 events verifies',
    async () => {
      expect(size).toBeGreaterThanOrEqual(EVENTS)
      expect(await checkDatabase(t.deps)).toMatchObject({ ok: true, problem: null, size })
      const whole = await checkDatabaseFully(t.deps)
      prefix = whole.prefix
      // Every whole span of BATCH leaves is in the prefix; the rest is checked leaf by leaf.
      expect(prefix?.frontier.size).toBe(Math.floor(size / BATCH) * BATCH)
      const periodic = await checkSince(t.deps, prefix)
      expect(periodic).toMatchObject({ from: prefix!.frontier.size, result: whole.result })
    },
    LONG,
  )

  it(
    'a one-byte edit of any column of an event, of a tree node, or of a checkpoint note',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: EVENTS - 1 }),
          fc.constantFrom('event', 'event', 'event', 'event', 'node', 'checkpoint'),
          fc.nat(),
          fc.nat(),
          fc.constantFrom(...PRINTABLE),
          async (index, table, columnSeed, position, replacement) => {
            if (table === 'event') {
              const row = await at(index)
              const columns = LEAF_COLUMNS.filter((c) => row[c] !== null && row[c] !== '')
              const column = columns[columnSeed % columns.length]!
              const before = String(row[column])
              const p = position % before.length
              fc.pre(before[p] !== replacement)
              const after = before.slice(0, p) + replacement + before.slice(p + 1)
              let written = false
              await withChange(
                async () => {
                  try {
                    await t.deps.db
                      .updateTable('audit_events')
                      .set({ [column]: after })
                      .where('id', '=', row.id)
                      .execute()
                    written =
                      String(
                        (
                          await t.deps.db
                            .selectFrom('audit_events')
                            .select(column)
                            .where('leaf_index', '=', index)
                            .executeTakeFirst()
                        )?.[column],
                      ) !== before
                  } catch {
                    // Not a value the column takes (an impossible date on PostgreSQL)
                    written = false
                  }
                  return async () => {
                    await t.deps.db
                      .updateTable('audit_events')
                      .set({ [column]: row[column] })
                      .where('leaf_index', '=', index)
                      .execute()
                    await t.deps.db
                      .updateTable('audit_events')
                      .set({ [column]: row[column] })
                      .where('id', '=', after)
                      .execute()
                  }
                },
                async () => {
                  fc.pre(written)
                  const problem = await detected()
                  expect(problem.index, `${column} of leaf ${index}`).toBe(index)
                },
              )
            } else if (table === 'node') {
              const level = columnSeed % 6
              const idx = Math.floor(index / 2 ** level)
              const row = await t.deps.db
                .selectFrom('audit_tree_nodes')
                .select('hash')
                .where('level', '=', level)
                .where('idx', '=', idx)
                .executeTakeFirstOrThrow()
              const p = position % row.hash.length
              const hex = '0123456789abcdef'[
                (parseInt(row.hash[p]!, 16) + 1 + (columnSeed % 15)) % 16
              ]!
              const after = row.hash.slice(0, p) + hex + row.hash.slice(p + 1)
              const where = (q: ReturnType<typeof update>) =>
                q.where('level', '=', level).where('idx', '=', idx)
              const update = () => t.deps.db.updateTable('audit_tree_nodes')
              await withChange(
                async () => {
                  await where(update().set({ hash: after })).execute()
                  return async () => void (await where(update().set({ hash: row.hash })).execute())
                },
                async () => void (await detected()),
              )
            } else {
              const rows = await t.deps.db
                .selectFrom('audit_checkpoints')
                .select(['tree_size', 'note'])
                .orderBy('tree_size')
                .execute()
              const row = rows[columnSeed % rows.length]!
              const p = position % row.note.length
              fc.pre(row.note[p] !== replacement)
              const after = row.note.slice(0, p) + replacement + row.note.slice(p + 1)
              await withChange(
                async () => {
                  await t.deps.db
                    .updateTable('audit_checkpoints')
                    .set({ note: after })
                    .where('tree_size', '=', row.tree_size)
                    .execute()
                  return async () =>
                    void (await t.deps.db
                      .updateTable('audit_checkpoints')
                      .set({ note: row.note })
                      .where('tree_size', '=', row.tree_size)
                      .execute())
                },
                async () => void (await detected()),
              )
            }
          },
        ),
        { numRuns: 18, seed: 301 },
      )
    },
    LONG,
  )

  it(
    'a deletion of an event or of a leaf hash',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: EVENTS - 1 }),
          fc.boolean(),
          async (index, eventRow) => {
            if (eventRow) {
              const row = await at(index)
              await withChange(
                async () => {
                  await t.deps.db.deleteFrom('audit_events').where('id', '=', row.id).execute()
                  return async () =>
                    void (await t.deps.db.insertInto('audit_events').values(row).execute())
                },
                async () => expect(await detected()).toMatchObject({ index, kind: 'missing' }),
              )
            } else {
              const node = await t.deps.db
                .selectFrom('audit_tree_nodes')
                .selectAll()
                .where('level', '=', 0)
                .where('idx', '=', index)
                .executeTakeFirstOrThrow()
              await withChange(
                async () => {
                  await t.deps.db
                    .deleteFrom('audit_tree_nodes')
                    .where('level', '=', 0)
                    .where('idx', '=', index)
                    .execute()
                  return async () =>
                    void (await t.deps.db.insertInto('audit_tree_nodes').values(node).execute())
                },
                async () => expect(await detected()).toMatchObject({ index, kind: 'missing' }),
              )
            }
          },
        ),
        { numRuns: 6, seed: 302 },
      )
    },
    LONG,
  )

  it(
    'an insertion: an event outside the tree, or one slipped in with the later ones renumbered',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: EVENTS - 1 }),
          fc.constantFrom('unnumbered', 'beyond', 'shifted'),
          async (index, how) => {
            const copy = { ...(await at(index)), id: `inserted-${index}-${how}` }
            await withChange(
              async () => {
                if (how === 'shifted') {
                  // Two steps, through negative numbers, so the unique index never sees a
                  // duplicate.
                  await sql`update audit_events set leaf_index = -leaf_index - 1 where leaf_index >= ${index}`.execute(
                    t.deps.db,
                  )
                  await sql`update audit_events set leaf_index = -leaf_index where leaf_index < 0`.execute(
                    t.deps.db,
                  )
                }
                await t.deps.db
                  .insertInto('audit_events')
                  .values({
                    ...copy,
                    leaf_index: how === 'unnumbered' ? null : how === 'beyond' ? size : index,
                  })
                  .execute()
                return async () => {
                  await t.deps.db.deleteFrom('audit_events').where('id', '=', copy.id).execute()
                  if (how === 'shifted') {
                    await sql`update audit_events set leaf_index = -leaf_index where leaf_index > ${index}`.execute(
                      t.deps.db,
                    )
                    await sql`update audit_events set leaf_index = -leaf_index - 1 where leaf_index < 0`.execute(
                      t.deps.db,
                    )
                  }
                }
              },
              async () => {
                const problem = await detected()
                if (how === 'shifted') expect(problem.index).toBe(index)
                else expect(problem.kind).toBe('inserted')
              },
            )
          },
        ),
        { numRuns: 6, seed: 303 },
      )
    },
    LONG,
  )

  it(
    'a swap of two entries',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: EVENTS - 1 }),
          fc.integer({ min: 0, max: EVENTS - 1 }),
          async (i, j) => {
            fc.pre(i !== j)
            const [a, b] = [await at(i), await at(j)]
            const swap = async (x: typeof a, y: typeof b) => {
              await t.deps.db
                .updateTable('audit_events')
                .set({ leaf_index: -1 })
                .where('id', '=', x.id)
                .execute()
              await t.deps.db
                .updateTable('audit_events')
                .set({ leaf_index: x.leaf_index })
                .where('id', '=', y.id)
                .execute()
              await t.deps.db
                .updateTable('audit_events')
                .set({ leaf_index: y.leaf_index })
                .where('id', '=', x.id)
                .execute()
            }
            await withChange(
              async () => {
                await swap(a, b)
                return async () =>
                  swap({ ...a, leaf_index: b.leaf_index }, { ...b, leaf_index: a.leaf_index })
              },
              async () => expect((await detected()).index).toBe(Math.min(i, j)),
            )
          },
        ),
        { numRuns: 6, seed: 304 },
      )
    },
    LONG,
  )

  it(
    'a truncation of the log (its tail deleted, events and tree alike)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: EVENTS - 1 }), async (keep) => {
          await withChange(
            async () => {
              const events = await t.deps.db
                .selectFrom('audit_events')
                .selectAll()
                .where('leaf_index', '>=', keep)
                .execute()
              const nodes = await t.deps.db
                .selectFrom('audit_tree_nodes')
                .selectAll()
                .where('level', '=', 0)
                .where('idx', '>=', keep)
                .execute()
              await t.deps.db.deleteFrom('audit_events').where('leaf_index', '>=', keep).execute()
              await t.deps.db
                .deleteFrom('audit_tree_nodes')
                .where('level', '=', 0)
                .where('idx', '>=', keep)
                .execute()
              return async () => {
                for (let i = 0; i < events.length; i += 500)
                  await t.deps.db
                    .insertInto('audit_events')
                    .values(events.slice(i, i + 500))
                    .execute()
                for (let i = 0; i < nodes.length; i += 500)
                  await t.deps.db
                    .insertInto('audit_tree_nodes')
                    .values(nodes.slice(i, i + 500))
                    .execute()
              }
            },
            async () => expect(await detected()).toMatchObject({ index: keep, kind: 'missing' }),
          )
        }),
        { numRuns: 4, seed: 305 },
      )
    },
    LONG,
  )

  it(
    'the log verifies again once every change is undone',
    async () => {
      expect(await checkDatabase(t.deps)).toMatchObject({ ok: true, size })
    },
    LONG,
  )
})

describe("the verifiable export of either engine's log", () => {
  let original: Buffer
  let lines: Buffer[]
  const dir = makeTempDir()

  beforeAll(async () => {
    ;({ original, lines } = await downloadVerifiableExport(t))
  }, LONG)

  const verify = (content: Buffer) => verifyExportBytes(dir, content, key)

  it(
    'the intact export verifies',
    async () => {
      expect(lines.length).toBeGreaterThan(EVENTS)
      expect(await verify(original)).toMatchObject({ ok: true, subset: false })
    },
    LONG,
  )
})
