/**
 * The WAL is copied back into the database file between requests, not inside a commit
 * (sqlite-checkpoint.ts). In WAL mode SQLite writes the database file itself only when it
 * checkpoints, so the file's size tells, without asking SQLite, whether a checkpoint has run:
 * commits that take the WAL well past the mark leave it as it was, and the next turn of the event
 * loop grows it. Under SQLite's default (a checkpoint inside the commit past 1,000 pages) the first
 * test fails.
 */
import fs from 'node:fs'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { sql, type Kysely } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { sqliteFiles } from '../../test/helpers/sqlite-files.js'
import { BACKSTOP_FRAMES, CHECKPOINT_FRAMES } from './sqlite-checkpoint.js'

const files = sqliteFiles()
afterAll(() => files.closeAll())

/** A row of about two pages (4 KiB each), so a commit adds a known handful of WAL frames. */
const ROW = 'x'.repeat(6000)

async function table(): Promise<{ db: Kysely<unknown>; file: string }> {
  const file = files.path('wal.db')
  const { db } = files.open(file) as unknown as { db: Kysely<unknown> }
  await sql`create table t (id integer primary key, body text not null)`.execute(db)
  // Let any checkpoint the set-up itself scheduled run, so the tests start from a settled file.
  await nextTurn()
  await nextTurn()
  return { db, file }
}

/** Commits `count` transactions back to back, with no turn of the event loop in between. */
async function commits(db: Kysely<unknown>, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await db.transaction().execute(async (tx) => {
      await sql`insert into t (body) values (${ROW})`.execute(tx)
    })
  }
}

const size = (file: string) => fs.statSync(file).size

describe('WAL checkpoints between requests', () => {
  it('a commit past the mark leaves the database file alone; the next turn copies the WAL back', async () => {
    const { db, file } = await table()
    const before = size(file)
    // ≈ 3 frames a commit: 600 commits take the WAL to about 1,800 frames, past the mark and short
    // of the backstop.
    await commits(db, 600)
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(CHECKPOINT_FRAMES * 4096)
    expect(size(file)).toBe(before)
    await nextTurn()
    await nextTurn()
    expect(size(file)).toBeGreaterThan(before + 600 * ROW.length)
    // Everything committed is there, read through another connection.
    const { db: other } = files.open(file) as unknown as { db: Kysely<unknown> }
    const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(other)
    expect(Number(rows[0]!.n)).toBe(600)
  })

  it('below the mark nothing is checkpointed', async () => {
    const { db, file } = await table()
    const before = size(file)
    await commits(db, 100)
    await nextTurn()
    await nextTurn()
    expect(size(file)).toBe(before)
  })

  it('SQLite’s own checkpoint still bounds a WAL that grows with no turn in between', async () => {
    const { db, file } = await table()
    const before = size(file)
    // ≈ 3 frames a commit: past the backstop.
    await commits(db, Math.ceil((BACKSTOP_FRAMES * 1.2) / 3))
    expect(size(file)).toBeGreaterThan(before)
  })

  it('a checkpoint waits for a transaction that holds the connection across turns', async () => {
    const { db, file } = await table()
    const before = size(file)
    await commits(db, 600)
    // This transaction takes the connection before the checkpoint's turn and keeps it until told
    // (not over a timer: on a loaded machine two turns took longer than one, and it let go first).
    let letGo!: () => void
    const toldToLetGo = new Promise<void>((resolve) => (letGo = resolve))
    const holding = db.transaction().execute(async (tx) => {
      await sql`insert into t (body) values (${ROW})`.execute(tx)
      await toldToLetGo
      await sql`insert into t (body) values (${ROW})`.execute(tx)
    })
    await nextTurn()
    await nextTurn()
    await sleep(30)
    expect(size(file)).toBe(before)
    letGo()
    await holding
    await nextTurn()
    await nextTurn()
    expect(size(file)).toBeGreaterThan(before + 600 * ROW.length)
    const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db)
    expect(Number(rows[0]!.n)).toBe(602)
  })
})
