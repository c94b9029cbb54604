import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from '../../test/helpers/app.js'
import { createUser, openSessionFor } from '../../test/helpers/factories.js'
import { authenticateBearer } from '../identity/authenticate.js'
import { compiledOnce, precompiled, sharePlaceholders } from './precompiled.js'
import { isPostgres } from './engine.js'
import type { Executor } from './schema.js'
import { CompiledQuery, sql } from 'kysely'

let t: TestContext
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t.close())

/** A read of one user's `column` by id, made once. */
type ReadOfId = (ex: Executor, values: { id: string }) => Promise<unknown[]>

/**
 * Two reads of users made by `make`, asked 40 times at once for two users — more calls than the
 * pool has connections — each answered with its own columns: statements are named by their text's
 * hash (db/precompiled.ts), and a mix-up would answer one read with the other's columns.
 */
async function burstOfTwo(make: (column: 'email' | 'name') => ReadOfId) {
  const emailOf = make('email')
  const nameOf = make('name')
  const users = await Promise.all([
    createUser(t, { name: 'First' }),
    createUser(t, { name: 'Second' }),
  ])
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => {
      const { user } = users[i % 2]!
      return i % 4 < 2 ? emailOf(t.deps.db, { id: user.id }) : nameOf(t.deps.db, { id: user.id })
    }),
  )
  answers.forEach((rows, i) => {
    const { user } = users[i % 2]!
    expect(rows).toEqual(i % 4 < 2 ? [{ email: user.email }] : [{ name: user.name }])
  })
  return { emailOf, nameOf, users }
}

describe('precompiled queries', () => {
  it('run with fresh parameter values on every call', async () => {
    const byEmail = precompiled(['email'], (ex, p) =>
      ex.selectFrom('users').select(['id', 'email']).where('email', '=', p.email),
    )
    const a = await createUser(t)
    const b = await createUser(t)
    expect(await byEmail(t.deps.db, { email: a.email })).toEqual([
      { id: a.user.id, email: a.email },
    ])
    expect(await byEmail(t.deps.db, { email: b.email })).toEqual([
      { id: b.user.id, email: b.email },
    ])
    expect(await byEmail(t.deps.db, { email: 'nobody@example.com' })).toEqual([])
  })

  it('work inside transactions too', async () => {
    const count = precompiled(['id'], (ex, p) =>
      ex.selectFrom('users').select('id').where('id', '=', p.id),
    )
    const { user } = await createUser(t)
    const rows = await t.deps.db.transaction().execute((tx) => count(tx, { id: user.id }))
    expect(rows).toHaveLength(1)
  })

  it('keep two queries apart under a concurrent burst; on PostgreSQL each runs as its own named prepared statement', async () => {
    const { emailOf, nameOf, users } = await burstOfTwo((column) =>
      precompiled(['id'], (ex, p) => ex.selectFrom('users').select(column).where('id', '=', p.id)),
    )
    if (t.deps.database.engine === 'postgres') {
      // The hot reads run on the pipelined connections (db/postgres.ts), taken in turn. Each
      // statement is asked on every one of them, then each connection is asked — by a precompiled
      // read of its own, so on the same connections — which prepared statements it keeps.
      const preparedHere = precompiled(['id'], (ex, p) =>
        ex
          .selectFrom('users')
          .select(
            sql<string>`(select string_agg(name || ' ' || statement, '\n') from pg_prepared_statements where name like 'sb\_%')`.as(
              'statements',
            ),
          )
          .where('id', '=', p.id),
      )
      for (const read of [emailOf, emailOf, nameOf, nameOf])
        await read(t.deps.db, { id: users[0].user.id })
      const lists = await Promise.all(
        [0, 1].map(() => preparedHere(t.deps.db, { id: users[0].user.id })),
      )
      const named = lists.flatMap((rows) => rows[0]!.statements.split('\n'))
      expect(named).toEqual(
        expect.arrayContaining([
          expect.stringContaining('select "email" from "users"'),
          expect.stringContaining('select "name" from "users"'),
        ]),
      )
      // One name per text on each connection: a name never stands for two texts.
      for (const rows of lists) {
        const lines = rows[0]!.statements.split('\n')
        expect(new Set(lines.map((line) => line.split(' ')[0])).size).toBe(lines.length)
      }
    }
  })

  it('use one value several times, sent once on PostgreSQL (one $n per named parameter)', async () => {
    const a = await createUser(t, { name: 'Same' })
    const sameTwice = precompiled(['id', 'name'], (ex, p) =>
      ex
        .selectFrom('users')
        .select(['id', sql<string>`${p.name}`.as('echo')])
        .where('id', '=', p.id)
        .where((eb) => eb.or([eb('name', '=', p.name), eb('id', '=', p.id)]))
        .where('disabled', '=', false),
    )
    expect(await sameTwice(t.deps.db, { id: a.user.id, name: 'Same' })).toEqual([
      { id: a.user.id, echo: 'Same' },
    ])
    expect(await sameTwice(t.deps.db, { id: a.user.id, name: 'Other' })).toEqual([
      { id: a.user.id, echo: 'Other' },
    ])
    expect(await sameTwice(t.deps.db, { id: 'nobody', name: 'Same' })).toEqual([])
  })

  it('share placeholders by name: each named value once, constants kept, anything unexpected left as compiled', () => {
    const compiled = CompiledQuery.raw('select $1, $2 where a = $3 and b = $4 and c = $5', [
      'u',
      's',
      'u',
      true,
      's',
    ])
    const shared = sharePlaceholders(compiled, ['user', 'slug', 'user', null, 'slug'])
    expect(shared.compiled.sql).toBe('select $1, $2 where a = $1 and b = $3 and c = $2')
    expect(shared.compiled.parameters).toEqual(['u', 's', true])
    expect(shared.slots).toEqual(['user', 'slug', null])
    // Placeholders out of order (not Kysely's numbering): nothing is rewritten.
    const odd = CompiledQuery.raw('select $2, $1', ['a', 'b'])
    expect(sharePlaceholders(odd, ['x', 'x']).compiled).toBe(odd)
  })

  it('refuse a definition that does not use one of its parameters', async () => {
    const broken = precompiled(['id', 'unused'], (ex, p) =>
      ex.selectFrom('users').select('id').where('id', '=', p.id),
    )
    await expect(broken(t.deps.db, { id: 'x', unused: 'y' })).rejects.toThrow(/unused/)
  })

  it("never read another request's uncommitted writes (they wait for the transaction)", async () => {
    const { user } = await createUser(t)
    const token = await openSessionFor(t, user.id)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let locked!: () => void
    const started = new Promise<void>((resolve) => (locked = resolve))
    const transaction = t.deps.db
      .transaction()
      .execute(async (tx) => {
        await tx.updateTable('users').set({ disabled: true }).where('id', '=', user.id).execute()
        locked()
        await gate
        throw new Error('roll back')
      })
      .catch(() => undefined)
    await started
    const read = authenticateBearer(t.deps, token, '127.0.0.1')
    release()
    await transaction
    expect((await read)?.user.id).toBe(user.id)
  })
})

describe('queries compiled once', () => {
  it('keep two queries apart under a concurrent burst', async () => {
    await burstOfTwo((column) =>
      compiledOnce(['id'], (ex, p) => ex.selectFrom('users').select(column).where('id', '=', p.id)),
    )
  })

  it('run with fresh values, an array one included, in and out of transactions', async () => {
    const named = compiledOnce(['ids', 'name'], (ex, p) => {
      const inIds = isPostgres(ex)
        ? sql<boolean>`id = any(cast(${p.ids} as text[]))`
        : sql<boolean>`id in (select value from json_each(${p.ids}))`
      return ex.selectFrom('users').select('id').where(inIds).where('name', '=', p.name)
    })
    const ids = (list: string[]) => (isPostgres(t.deps.db) ? list : JSON.stringify(list))
    const [a, b] = await Promise.all([
      createUser(t, { name: 'Once' }),
      createUser(t, { name: 'Once' }),
    ])
    const found = async (ex: Executor, list: string[], name: string) =>
      (await named(ex, { ids: ids(list), name })).map((row) => row.id).sort()
    expect(await found(t.deps.db, [a.user.id, b.user.id], 'Once')).toEqual(
      [a.user.id, b.user.id].sort(),
    )
    expect(await found(t.deps.db, [a.user.id], 'Once')).toEqual([a.user.id])
    expect(await found(t.deps.db, [a.user.id], 'Other')).toEqual([])
    // What the transaction wrote it reads, as any statement of the transaction does.
    await t.deps.db
      .transaction()
      .execute(async (tx) => {
        await tx.updateTable('users').set({ name: 'Renamed' }).where('id', '=', b.user.id).execute()
        expect(await found(tx, [a.user.id, b.user.id], 'Renamed')).toEqual([b.user.id])
        throw new Error('roll back')
      })
      .catch(() => undefined)
    expect(await found(t.deps.db, [b.user.id], 'Once')).toEqual([b.user.id])
  })
})
