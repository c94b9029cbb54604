/**
 * On SQLite the hot-path reads (precompiled queries run through readNow) keep their rows until the
 * database changes (sqlite.ts ReadCache). These tests hold it to that: an unchanged database
 * answers from the cache, and any change — a write through this connection, or a commit by another
 * connection to the same file (another instance), read from the wal-index header — is seen by the
 * very next read.
 */
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { sqliteFiles } from '../../test/helpers/sqlite-files.js'
import { precompiled } from './precompiled.js'
import { migrateToLatest } from './migrate.js'
import { READ_CACHE_ENTRIES } from './sqlite-read-cache.js'
import { openSqlite } from './sqlite.js'

const files = sqliteFiles()
afterAll(() => files.closeAll())

async function sharedFile(): Promise<string> {
  const file = files.path('cache.db')
  await migrateToLatest(files.open(file))
  return file
}

const AT = '2026-01-01T00:00:00.000Z'

/** A key/value row stands in for a credential: "live" until something changes it. */
const liveSetting = precompiled(['key'], (ex, p) =>
  ex.selectFrom('settings').select('key').where('key', '=', p.key).where('value', '=', '"live"'),
)

const put = (key: string, value: string) =>
  sql`insert into settings (key, value, updated_at) values (${key}, ${value}, ${AT})`
const change = (key: string, value: string) =>
  sql`update settings set value = ${value} where key = ${key}`

describe('SQLite read cache', () => {
  it('answers an unchanged database from the cache, with frozen rows', async () => {
    const file = await sharedFile()
    const { db } = files.open(file)
    await put('a', '"live"').execute(db)
    await put('b', '"live"').execute(db)
    const first = await liveSetting(db, { key: 'a' })
    const second = await liveSetting(db, { key: 'a' })
    expect(second).toEqual([{ key: 'a' }])
    expect(second).toBe(first)
    expect(Object.isFrozen(second[0])).toBe(true)
    // Another key is its own entry.
    expect(await liveSetting(db, { key: 'b' })).toEqual([{ key: 'b' }])
    expect(await liveSetting(db, { key: 'nobody' })).toEqual([])
  })

  it('maps a row once as it enters the cache, and again after a change; the result is frozen through', async () => {
    const file = await sharedFile()
    const { db } = files.open(file)
    await put('m', '"live"').execute(db)
    let mapped = 0
    const withRecord = precompiled(
      ['key'],
      (ex, p) =>
        ex
          .selectFrom('settings')
          .select(['key', 'updated_at'])
          .where('key', '=', p.key)
          .where('value', '=', '"live"'),
      (row) => {
        mapped++
        return { record: { key: row.key }, updatedMs: Date.parse(row.updated_at) }
      },
    )
    const first = await withRecord(db, { key: 'm' })
    expect(first).toEqual([{ record: { key: 'm' }, updatedMs: Date.parse(AT) }])
    expect(await withRecord(db, { key: 'm' })).toBe(first)
    expect(mapped).toBe(1)
    expect(Object.isFrozen(first[0])).toBe(true)
    expect(Object.isFrozen(first[0]!.record)).toBe(true)
    await change('m', '"live"').execute(db)
    expect(await withRecord(db, { key: 'm' })).toEqual(first)
    expect(mapped).toBe(2)
    // Inside a transaction the read is not cached, and is mapped all the same.
    expect(await db.transaction().execute((tx) => withRecord(tx, { key: 'm' }))).toEqual(first)
    expect(mapped).toBe(3)
  })

  it('sees a write through its own connection at the next read', async () => {
    const { db } = files.open(await sharedFile())
    await put('a', '"live"').execute(db)
    expect(await liveSetting(db, { key: 'a' })).toEqual([{ key: 'a' }])
    await change('a', '"revoked"').execute(db)
    expect(await liveSetting(db, { key: 'a' })).toEqual([])
    await db.transaction().execute((tx) => change('a', '"live"').execute(tx))
    expect(await liveSetting(db, { key: 'a' })).toEqual([{ key: 'a' }])
  })

  it("sees another connection's commit at the next read (another instance on the same file)", async () => {
    const file = await sharedFile()
    const mine = files.open(file).db
    await put('a', '"live"').execute(mine)
    expect(await liveSetting(mine, { key: 'a' })).toEqual([{ key: 'a' }])

    // A second handle is a second connection, exactly as a second process would open the file.
    const theirs = files.open(file).db
    await change('a', '"revoked"').execute(theirs)
    expect(await liveSetting(mine, { key: 'a' })).toEqual([])

    // Outside Kysely altogether (as the command-line tool or a repair script would write).
    const raw = openSqlite(file)
    raw.prepare(`update settings set value = '"live"' where key = 'a'`).run()
    raw.close()
    expect(await liveSetting(mine, { key: 'a' })).toEqual([{ key: 'a' }])
  })

  it("sees each of another connection's commits in turn, also after it checkpointed and restarted the log", async () => {
    const file = await sharedFile()
    const mine = files.open(file).db
    await put('a', '"live"').execute(mine)
    const theirs = openSqlite(file)
    const set = theirs.prepare(`update settings set value = ? where key = 'a'`)
    for (let i = 0; i < 20; i++) {
      const value = i % 2 === 0 ? '"revoked"' : '"live"'
      // Every fifth commit follows a checkpoint that empties the write-ahead log, so the log
      // starts again from its beginning with new salts.
      if (i % 5 === 4) theirs.exec('pragma wal_checkpoint(TRUNCATE)')
      set.run(value)
      expect(await liveSetting(mine, { key: 'a' })).toEqual(
        value === '"live"' ? [{ key: 'a' }] : [],
      )
    }
    theirs.close()
  })

  it('keeps a bounded number of entries per statement', async () => {
    const { db } = files.open(await sharedFile())
    await put('a', '"live"').execute(db)
    const first = await liveSetting(db, { key: 'a' })
    for (let i = 0; i < READ_CACHE_ENTRIES; i++) await liveSetting(db, { key: `missing-${i}` })
    // The oldest entry was let go, so the same read runs again and builds new rows.
    const again = await liveSetting(db, { key: 'a' })
    expect(again).toEqual(first)
    expect(again).not.toBe(first)
  })

  it('is off with SQLITE_READ_CACHE=off: every read asks SQLite, and sees every change', async () => {
    const file = await sharedFile()
    const { db } = files.open(file, { readCache: false })
    await put('a', '"live"').execute(db)
    const first = await liveSetting(db, { key: 'a' })
    const second = await liveSetting(db, { key: 'a' })
    expect(second).toEqual([{ key: 'a' }])
    expect(second).not.toBe(first)
    const theirs = openSqlite(file)
    theirs.prepare(`update settings set value = '"revoked"' where key = 'a'`).run()
    theirs.close()
    expect(await liveSetting(db, { key: 'a' })).toEqual([])
  })
})
