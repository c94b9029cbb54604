/**
 * The data layer behaves the same on both engines: booleans, timestamps, locks, unique violations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from '../../test/helpers/app.js'
import { createUser } from '../../test/helpers/factories.js'
import { findUserById, lockActiveAdminIds } from '../modules/users/repo.js'
import { isUniqueViolation } from './client.js'
import { migrateToLatest } from './migrate.js'

let t: TestContext
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t.close())

describe(`data layer on ${process.env.TEST_DB ?? 'sqlite'}`, () => {
  it('runs on the engine the suite was started for', () => {
    expect(t.deps.database.engine).toBe(process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite')
  })

  it('reads booleans back as real booleans through the repos', async () => {
    const { user } = await createUser(t, { isAdmin: true })
    const found = await findUserById(t.deps.db, user.id)
    expect(found).toMatchObject({
      is_admin: true,
      disabled: false,
      ai_suggestions_enabled: true,
      has_password: true,
    })
    const passwordless = await createUser(t, { password: null })
    expect((await findUserById(t.deps.db, passwordless.user.id))?.has_password).toBe(false)
  })

  it('stores and returns timestamps as ISO-8601 UTC with milliseconds', async () => {
    const { user } = await createUser(t)
    const row = await t.deps.db
      .selectFrom('users')
      .select(['created_at', 'updated_at'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(row.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(row.created_at).toBe(user.created_at)
  })

  it('compares timestamps correctly in SQL', async () => {
    const { user } = await createUser(t)
    const later = new Date(Date.parse(user.created_at) + 1).toISOString()
    const earlier = new Date(Date.parse(user.created_at) - 1).toISOString()
    const after = await t.deps.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', user.id)
      .where('created_at', '<', later)
      .execute()
    const before = await t.deps.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', user.id)
      .where('created_at', '<', earlier)
      .execute()
    expect(after).toHaveLength(1)
    expect(before).toHaveLength(0)
  })

  it('recognises unique violations on both engines', async () => {
    const { email } = await createUser(t)
    const error = await createUser(t, { email }).catch((e: unknown) => e)
    expect(error).toMatchObject({ reason: 'ALREADY_EXISTS', details: 'email' })
    const raw = await t.deps.db
      .insertInto('instance_flags')
      .values([
        { name: 'dup', set_at: new Date().toISOString() },
        { name: 'dup', set_at: new Date().toISOString() },
      ])
      .execute()
      .catch((e: unknown) => e)
    expect(isUniqueViolation(raw)).toBe(true)
    expect(isUniqueViolation(new Error('other'))).toBe(false)
  })

  it('takes row locks inside transactions (a no-op on SQLite, which serialises writers)', async () => {
    await createUser(t, { isAdmin: true })
    const ids = await t.deps.db.transaction().execute((tx) => lockActiveAdminIds(tx))
    expect(ids.length).toBeGreaterThan(0)
  })

  it('rolls a failed transaction back entirely', async () => {
    const { user } = await createUser(t)
    await t.deps.db
      .transaction()
      .execute(async (tx) => {
        await tx.updateTable('users').set({ name: 'Changed' }).where('id', '=', user.id).execute()
        throw new Error('abort')
      })
      .catch(() => undefined)
    expect((await findUserById(t.deps.db, user.id))?.name).toBe('Test User')
  })

  it('migrates idempotently', async () => {
    expect((await migrateToLatest(t.deps.database)).applied).toEqual([])
  })
})
