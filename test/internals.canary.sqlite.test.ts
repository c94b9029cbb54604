/**
 * Canaries for SQLite's WAL-index layout, which src/db/drivers/sqlite-commit-watch.ts reads from
 * the `-shm` file (SQLite as bundled in this Node's node:sqlite), each test named after the part
 * of the layout it checks. If one fails, set SQLITE_READ_CACHE=off until the watch is fixed.
 */
import fs from 'node:fs'
import os from 'node:os'
import type { DatabaseSync } from 'node:sqlite'
import { afterAll, describe, expect, it } from 'vitest'
import { CommitWatch } from '../src/db/drivers/sqlite-commit-watch.js'
import { openSqlite } from '../src/db/sqlite.js'
import { makeTempDir } from './helpers/database.js'

const opened: Array<{ close(): void }> = []
afterAll(() => {
  for (const item of opened.reverse()) item.close()
})

/** Two connections to one new database file (two instances, or two processes, alike). */
function twoConnections(): { file: string; ours: DatabaseSync; theirs: DatabaseSync } {
  const file = `${makeTempDir()}/canary.db`
  const ours = openSqlite(file)
  const theirs = openSqlite(file)
  opened.push(ours, theirs)
  theirs.exec('create table t (n integer)')
  return { file, ours, theirs }
}

const header = (file: string) => fs.readFileSync(`${file}-shm`).subarray(0, 48)
const uint32 = (bytes: Buffer, offset: number) =>
  os.endianness() === 'LE' ? bytes.readUInt32LE(offset) : bytes.readUInt32BE(offset)

describe('SQLite WAL-index (db/drivers/sqlite-commit-watch.ts)', () => {
  it(`SQLite ${process.versions.sqlite}: the WAL-index header (bytes 0–47 of -shm) changes on a commit from another connection`, () => {
    const { file, ours, theirs } = twoConnections()
    ours.prepare('select count(*) from t').get()
    const before = Buffer.from(header(file))
    theirs.exec('insert into t values (1)')
    expect(header(file).equals(before)).toBe(false)
  })

  it('SQLite: the WAL-index header stays the same while nothing commits (reads by any connection)', () => {
    const { file, ours, theirs } = twoConnections()
    ours.prepare('select count(*) from t').get()
    const before = Buffer.from(header(file))
    theirs.prepare('select count(*) from t').get()
    ours.prepare('select * from t').all()
    expect(header(file).equals(before)).toBe(true)
  })

  it('SQLite: mxFrame (byte 16) less nBackfill (byte 96) of -shm counts the WAL frames not yet checkpointed', () => {
    const { file, ours, theirs } = twoConnections()
    for (let n = 0; n < 5; n++) theirs.exec(`insert into t values (${n})`)
    const shm = () => fs.readFileSync(`${file}-shm`)
    const backlog = () => uint32(shm(), 16) - uint32(shm(), 96)
    expect(backlog()).toBeGreaterThanOrEqual(5)
    ours.exec('pragma wal_checkpoint(PASSIVE)')
    expect(backlog()).toBe(0)
    theirs.exec('insert into t values (6)')
    expect(backlog()).toBeGreaterThan(0)
  })

  it("the commit watch sees another connection's commit, and nothing while none happens", () => {
    const { ours, theirs } = twoConnections()
    const watch = new CommitWatch(ours)
    opened.push(watch)
    watch.committedSinceLastLook()
    expect(watch.committedSinceLastLook()).toBe(false)
    theirs.exec('insert into t values (1)')
    expect(watch.committedSinceLastLook()).toBe(true)
    expect(watch.committedSinceLastLook()).toBe(false)
    expect(watch.walBacklog()).toBeGreaterThan(0)
  })
})
