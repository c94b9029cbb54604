/**
 * Migration 0033 on a database that already holds live SCIM credentials sharing a name (possible
 * before it): they keep working under names of their own, the oldest keeps the name, revoked ones
 * are left alone, and the unique index then refuses a second live credential of one name.
 */
import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { isUniqueViolation } from '../../db/client.js'
import { useTestApp } from '../../../test/helpers/app.js'
import { down, up } from '../../migrations/0033_scim_credential_names.js'

const t = useTestApp()

const row = (id: string, name: string, createdAt: string, revokedAt: string | null = null) => ({
  id,
  name,
  prefix: 'scim_0000000',
  token_hash: `hash-${id}`,
  created_at: createdAt,
  created_by: null,
  last_used_at: null,
  revoked_at: revokedAt,
})

describe('migration 0033 (one live SCIM credential per name)', () => {
  it('renames all but the oldest of live credentials sharing a name, then holds names unique', async () => {
    const db = t.deps.db as unknown as Kysely<unknown>
    await down(db)
    await t.deps.db
      .insertInto('scim_credentials')
      .values([
        row('m33-a', 'Okta', '2026-01-01T00:00:00.000Z'),
        row('m33-b', 'Okta', '2026-01-02T00:00:00.000Z'),
        row('m33-c', 'Okta', '2026-01-03T00:00:00.000Z'),
        row('m33-d', 'Okta (2)', '2026-01-04T00:00:00.000Z'),
        row('m33-e', 'Okta', '2026-01-05T00:00:00.000Z', '2026-01-06T00:00:00.000Z'),
      ])
      .execute()
    await up(db)
    const names = await t.deps.db
      .selectFrom('scim_credentials')
      .select(['id', 'name'])
      .where('id', 'like', 'm33-%')
      .orderBy('id')
      .execute()
    expect(names).toEqual([
      { id: 'm33-a', name: 'Okta' },
      { id: 'm33-b', name: 'Okta (3)' },
      { id: 'm33-c', name: 'Okta (4)' },
      { id: 'm33-d', name: 'Okta (2)' },
      { id: 'm33-e', name: 'Okta' },
    ])
    const duplicate = await t.deps.db
      .insertInto('scim_credentials')
      .values(row('m33-f', 'Okta', '2026-01-07T00:00:00.000Z'))
      .execute()
      .then(
        () => null,
        (error: unknown) => error,
      )
    expect(isUniqueViolation(duplicate)).toBe(true)
    // A revoked credential's name may repeat.
    await t.deps.db
      .insertInto('scim_credentials')
      .values(row('m33-g', 'Okta', '2026-01-08T00:00:00.000Z', '2026-01-08T00:00:00.000Z'))
      .execute()
    expect(
      Number(
        (
          await sql<{
            n: number
          }>`select count(*) as n from scim_credentials where name = 'Okta'`.execute(t.deps.db)
        ).rows[0]!.n,
      ),
    ).toBe(3)
  })
})
