/**
 * The node:sqlite driver reports failures the way the rest of the data layer expects them
 * (`code: 'SQLITE_…'`), so constraint violations answer 409 and a busy database 503, exactly as
 * with better-sqlite3 before it; and loading it prints nothing on any supported Node.
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { sql, type Kysely } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { sqliteFiles } from '../../test/helpers/sqlite-files.js'
import {
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isUniqueViolation,
  type DatabaseHandle,
} from './client.js'
import { compiledOnce } from './precompiled.js'
import type { Executor } from './schema.js'
import { openSqlite } from './sqlite.js'

const files = sqliteFiles()
afterAll(() => files.closeAll())

function freshDatabase(): { file: string; handle: DatabaseHandle } {
  const file = files.path('driver.db')
  return { file, handle: files.open(file) }
}

async function failure(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected the query to fail')
    },
    (error: unknown) => error,
  )
}

describe('SQLite driver (node:sqlite)', () => {
  it('names constraint violations as SQLite does: unique, primary key, foreign key', async () => {
    const { handle } = freshDatabase()
    const { db } = handle
    await sql`create table parents (id text primary key, email text unique)`.execute(db)
    await sql`create table children (id integer primary key, parent_id text references parents(id))`.execute(
      db,
    )
    await sql`insert into parents values ('a', 'a@example.com')`.execute(db)

    const primaryKey = await failure(
      sql`insert into parents values ('a', 'b@example.com')`.execute(db),
    )
    expect(primaryKey).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' })
    expect(isUniqueViolation(primaryKey)).toBe(true)

    const unique = await failure(sql`insert into parents values ('b', 'a@example.com')`.execute(db))
    expect(unique).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' })
    expect(isUniqueViolation(unique)).toBe(true)

    const foreignKey = await failure(
      sql`insert into children (parent_id) values ('nobody')`.execute(db),
    )
    expect(foreignKey).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })
    expect(isForeignKeyViolation(foreignKey)).toBe(true)
    expect(isUniqueViolation(foreignKey)).toBe(false)
    expect(isDatabaseUnavailable(foreignKey)).toBe(false)
  })

  it('reports a write lock held by another process past busy_timeout as unavailable (503), and a closed database too', async () => {
    const { file, handle } = freshDatabase()
    await sql`create table t (x integer)`.execute(handle.db)
    await sql`pragma busy_timeout = 50`.execute(handle.db)
    const other = openSqlite(file)
    other.exec('begin immediate')
    try {
      const busy = await failure(
        handle.db.transaction().execute((trx) => sql`insert into t values (1)`.execute(trx)),
      )
      expect(busy).toMatchObject({ code: 'SQLITE_BUSY' })
      expect(isDatabaseUnavailable(busy)).toBe(true)
    } finally {
      other.exec('rollback')
      other.close()
    }
    // The lock is gone: the same write now succeeds, and reports what it changed.
    const inserted = await handle.db
      .transaction()
      .execute((trx) => sql`insert into t values (1)`.execute(trx))
    expect(inserted.numAffectedRows).toBe(1n)

    await handle.close()
    expect(isDatabaseUnavailable(await failure(sql`select 1`.execute(handle.db)))).toBe(true)
  })

  it('returns rows for reads and writes with RETURNING, and counts for plain writes', async () => {
    const { handle } = freshDatabase()
    const { db } = handle
    await sql`create table t (id integer primary key, name text)`.execute(db)
    const returned = await sql<{
      id: number
      name: string
    }>`insert into t (name) values ('one') returning id, name`.execute(db)
    expect(returned.rows).toEqual([{ id: 1, name: 'one' }])
    const updated = await sql`update t set name = 'two' where id = 1`.execute(db)
    expect(updated.numAffectedRows).toBe(1n)
    expect((await sql<{ name: string }>`select name from t`.execute(db)).rows).toEqual([
      { name: 'two' },
    ])
  })

  it('gives a long read a connection of its own: beside a held transaction, read-only, closed after', async () => {
    const { handle } = freshDatabase()
    const { db } = handle
    await sql`create table t (id integer primary key, name text)`.execute(db)
    await sql`insert into t (name) values ('committed')`.execute(db)
    let release = () => undefined as void
    const held = new Promise<void>((resolve) => (release = resolve))
    let entered = () => undefined as void
    const writing = new Promise<void>((resolve) => (entered = resolve))
    // A write transaction holds the service's one connection until released.
    const transaction = db.transaction().execute(async (tx) => {
      await sql`insert into t (name) values ('uncommitted')`.execute(tx)
      entered()
      await held
    })
    await writing
    let ownDb: Kysely<unknown> | null = null
    const read = await handle.withOwnReader(async (reader) => {
      ownDb = reader as unknown as Kysely<unknown>
      // In a transaction of its own (DEFERRED: the writer holds the write lock).
      const names = await reader
        .transaction()
        .execute((tx) => sql<{ name: string }>`select name from t order by id`.execute(tx))
      const write = await failure(sql`insert into t (name) values ('refused')`.execute(reader))
      return { names: names.rows.map((row) => row.name), write }
    })
    release()
    await transaction
    expect(read.names).toEqual(['committed'])
    expect(String((read.write as Error).message)).toMatch(/readonly|read-only|query_only/i)
    await expect(sql`select 1`.execute(ownDb!)).rejects.toThrow()
    const after = await sql<{ n: number }>`select count(*) as n from t`.execute(db)
    expect(after.rows[0]!.n).toBe(2)
  })

  it("answers a precompiled read's rows as node:sqlite would, and Kysely's as node:sqlite does", async () => {
    const { file, handle } = freshDatabase()
    await sql`create table v (i integer, r real, t text, b blob, n text)`.execute(handle.db)
    await sql`insert into v values (42, 1.5, 'ä', x'00ff', null)`.execute(handle.db)
    // Two columns named id: the last one wins, as in node:sqlite's own rows.
    const build = (ex: Executor, t: string) =>
      (ex as unknown as Kysely<Record<string, Record<string, unknown>>>)
        .selectFrom('v')
        .select([sql`i`.as('id'), 'r', sql`t`.as('id'), 'b', 'n', sql`i`.as('x')])
        .where('t', '=', t)
    const text = build(handle.db, 'ä').compile().sql
    const theirs = openSqlite(file).prepare(text).all('ä')
    const ours = await compiledOnce(['t'], (ex, p) => build(ex, p.t))(handle.db, { t: 'ä' })
    expect(ours).toHaveLength(1)
    expect(Object.entries(ours[0]!)).toEqual(Object.entries(theirs[0]!))
    expect(Object.getPrototypeOf(ours[0])).toBe(Object.prototype)
    // The same statement through Kysely answers node:sqlite's own objects.
    const viaKysely = (await build(handle.db, 'ä').execute())[0]!
    expect(Object.getPrototypeOf(viaKysely)).toBe(null)
    expect(Object.entries(viaKysely)).toEqual(Object.entries(theirs[0]!))
    // A column named __proto__ is data, never the row's prototype.
    const odd = compiledOnce(['t'], (ex, p) =>
      (ex as unknown as Kysely<Record<string, Record<string, unknown>>>)
        .selectFrom('v')
        .select([sql`'x'`.as('__proto__'), 't'])
        .where('t', '=', p.t),
    )
    const row = (await odd(handle.db, { t: 'ä' }))[0] as Record<string, unknown>
    expect(Object.hasOwn(row, '__proto__')).toBe(true)
    expect(row.t).toBe('ä')
  })

  it('prints no warning when it loads, on any supported Node (Node 22 marks node:sqlite experimental)', () => {
    const database = files.path('w.db')
    const sqliteModule = path.resolve(import.meta.dirname, '../../dist/db/sqlite.js')
    const script = `import(${JSON.stringify(sqliteModule)}).then((m) => m.openSqlite(${JSON.stringify(database)}).close())`
    const run = (code: string) => spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' })
    const quiet = run(script)
    expect(quiet.status).toBe(0)
    expect(quiet.stderr).toBe('')
    // Other warnings still reach the operator.
    const other = run(
      `${script}.then(() => process.emitWarning('something else', 'ExperimentalWarning'))`,
    )
    expect(other.stderr).toContain('ExperimentalWarning: something else')
  })
})
