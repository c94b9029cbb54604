/**
 * Writes of many links at once against a writer that locks links in id order (a bulk action, a
 * PUT of a collection's links: links/repo.ts lockLinksInIdOrder), on PostgreSQL where the two run
 * at once: re-keying every link for a new slug rule, deleting an organization, deleting an
 * account. Each of the three locks its links in id order first (db/row-locks.ts), so it waits for
 * the writer instead of deadlocking with it (PostgreSQL would fail one of the two). The links are
 * laid out so that any other order — storage, creation time, slug — takes `b` before `a`.
 */
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { createOrganization } from '../../../test/helpers/organizations.js'
import { holdOpen, raceAgainst } from '../../../test/helpers/row-locks.js'
import { lockLinksInIdOrder } from './repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

/**
 * Two links of `user` (in `organizationId` when given), `a` < `b` by id, with `b` first in
 * every other order: created earlier, its slug first, its row version earlier in the table.
 */
async function twoLinks(
  user: SignedIn,
  organizationId?: string,
): Promise<{ a: string; b: string }> {
  const owner = organizationId === undefined ? {} : { organization_id: organizationId }
  const tail = Math.random().toString(36).slice(2, 10)
  const first = await createLink(t, user.token, { slug: `z-${tail}`, ...owner })
  const second = await createLink(t, user.token, { slug: `a-${tail}`, ...owner })
  expect(first.id < second.id).toBe(true)
  const [a, b] = [first.id, second.id]
  await t.deps.db
    .updateTable('links')
    .set({ created_at: '2020-01-01T00:00:00.000Z' })
    .where('id', '=', b)
    .execute()
  await t.deps.db
    .updateTable('links')
    .set({ created_at: '2020-01-02T00:00:00.000Z' })
    .where('id', '=', a)
    .execute()
  const { rows } = await sql<{
    id: string
  }>`select id from links where id in (${a}, ${b}) order by ctid`.execute(t.deps.db)
  expect(rows.map((row) => row.id)).toEqual([b, a])
  return { a, b }
}

/**
 * A writer locks `a`, then `start` begins the many-links write, then the writer locks `b` and
 * commits (a deadlock would fail it): answers whether the write waited for the writer, and its
 * answer.
 */
function againstWriterInIdOrder(
  a: string,
  b: string,
  start: () => Promise<LightMyRequestResponse>,
) {
  const writer = holdOpen(
    t.deps.db,
    (tx) => lockLinksInIdOrder(tx, [a]),
    async (tx) => {
      await lockLinksInIdOrder(tx, [b])
      await tx.updateTable('links').set({ title: 'Written' }).where('id', 'in', [a, b]).execute()
    },
  )
  return raceAgainst(writer, start)
}

describe('many links written at once, against a writer in id order', () => {
  it('re-keying every link for a new slug rule waits: no deadlock', async () => {
    const [admin, user] = await Promise.all([
      createSignedInUser(t, { isAdmin: true }),
      createSignedInUser(t),
    ])
    const { a, b } = await twoLinks(user)
    const { waited, answer } = await againstWriterInIdOrder(a, b, () =>
      t.app.inject({
        method: 'PUT',
        url: '/api/admin/settings/go-links',
        headers: bearer(admin.token),
        payload: { fold_separators: true },
      }),
    )
    expect(waited).toBe(true)
    expect(answer.statusCode).toBe(200)
    const rows = await t.deps.db
      .selectFrom('links')
      .select(['title', 'slug_key'])
      .where('id', 'in', [a, b])
      .orderBy('id')
      .execute()
    // Folded: the separator is gone from both keys, and the writer's change is kept.
    expect(rows.map((row) => row.title)).toEqual(['Written', 'Written'])
    expect(rows.every((row) => !row.slug_key!.includes('-'))).toBe(true)
  })

  it('deleting an organization waits: no deadlock, and its links are gone', async () => {
    const owner = await createSignedInUser(t)
    const organization = await createOrganization(t, owner.token)
    const { a, b } = await twoLinks(owner, organization.id)
    const { waited, answer } = await againstWriterInIdOrder(a, b, () =>
      t.app.inject({
        method: 'DELETE',
        url: `/api/organizations/${organization.id}`,
        headers: bearer(owner.token),
      }),
    )
    expect(waited).toBe(true)
    expect(answer.statusCode).toBe(204)
    expect(
      await t.deps.db.selectFrom('links').select('id').where('id', 'in', [a, b]).execute(),
    ).toEqual([])
  })

  it('deleting an account waits: no deadlock, and its personal links are gone', async () => {
    const user = await createSignedInUser(t)
    const { a, b } = await twoLinks(user)
    const { waited, answer } = await againstWriterInIdOrder(a, b, () =>
      t.app.inject({
        method: 'DELETE',
        url: '/api/users/me',
        headers: bearer(user.token),
        payload: { password: user.password },
      }),
    )
    expect(waited).toBe(true)
    expect(answer.statusCode).toBe(204)
    expect(
      await t.deps.db.selectFrom('links').select('id').where('id', 'in', [a, b]).execute(),
    ).toEqual([])
  })
})
