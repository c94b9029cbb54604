/**
 * A tag's `link_count` read from the counts kept by owner (`tag_link_counts`, migration 0122)
 * equals the count of the tagged links its owner can see — within a token's organization boundary
 * too — through every kind of write: a tag put on and taken off, a link moved to an organization
 * and to another person, a membership ended, a team share ended, a link deleted with its tags, a
 * tag deleted. After each, the stored counts also equal the tags on links grouped by the links'
 * owner. The reference reads every tagged link the person sees and counts them.
 */
import { sql, type Kysely } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink, createTag } from '../../../test/helpers/links.js'
import { createOrganization } from '../../../test/helpers/organizations.js'
import { keptAndGroupedTagCounts } from '../../../test/helpers/tags.js'
import { addTeamMember, createTeam } from '../../../test/helpers/teams.js'
import { visibleTo } from '../links/visibility.js'
import { down, up } from '../../migrations/0122_tag_link_counts.js'
import { listTags } from './repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

type Boundary = ReadonlySet<string> | undefined

let alice: Awaited<ReturnType<typeof createSignedInUser>>
let bob: Awaited<ReturnType<typeof createSignedInUser>>
const org: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' }
const tag: Record<'first' | 'second', string> = { first: '', second: '' }
const link: Record<'own' | 'inA' | 'inB' | 'bobs' | 'inC', string> = {
  own: '',
  inA: '',
  inB: '',
  bobs: '',
  inC: '',
}

/** The reference count: each tagged link read and tested for visibility and the boundary. */
async function recounted(userId: string, reachable: Boundary): Promise<Record<string, number>> {
  const boundary =
    reachable === undefined
      ? sql<boolean>`true`
      : reachable.size === 0
        ? sql<boolean>`links.organization_id is null`
        : sql<boolean>`(links.organization_id is null or links.organization_id in (${sql.join([...reachable])}))`
  const rows = await t.deps.db
    .selectFrom('link_tags')
    .innerJoin('links', 'links.id', 'link_tags.link_id')
    .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
    .select(['link_tags.tag_id', sql<number | string>`count(*)`.as('n')])
    .where('tags.user_id', '=', userId)
    .where(visibleTo(userId))
    .where(boundary)
    .groupBy('link_tags.tag_id')
    .execute()
  return Object.fromEntries(rows.map((row) => [row.tag_id, Number(row.n)]))
}

async function listed(userId: string, reachable: Boundary): Promise<Record<string, number>> {
  const tags = await listTags(t.deps.db, userId, { limit: 100, after: null }, { reachable })
  return Object.fromEntries(
    tags.filter((one) => one.link_count > 0).map((one) => [one.id, one.link_count]),
  )
}

async function expectCountsAsSeen(step: string): Promise<void> {
  const boundaries: Boundary[] = [undefined, new Set(), new Set([org.a]), new Set([org.a, org.c])]
  for (const reachable of boundaries) {
    const label = `${step}, boundary ${reachable === undefined ? 'none' : [...reachable].length}`
    expect(await listed(alice.user.id, reachable), label).toEqual(
      await recounted(alice.user.id, reachable),
    )
  }
  const [stored, grouped] = await keptAndGroupedTagCounts(t)
  expect(stored, step).toEqual(grouped)
}

const tagOn = (linkId: string, tagId: string) =>
  t.deps.db.insertInto('link_tags').values({ link_id: linkId, tag_id: tagId }).execute()

beforeAll(async () => {
  const admin = await createSignedInUser(t, { isAdmin: true })
  ;[alice, bob] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
  org.a = (await createOrganization(t, alice.token)).id
  org.b = (await createOrganization(t, alice.token)).id
  org.c = (await createOrganization(t, bob.token)).id
  const team = await createTeam(t, admin.token)
  for (const person of [alice, bob]) await addTeamMember(t, admin.token, team.id, person.user.id)
  tag.first = (await createTag(t, alice.token, 'first')).id
  tag.second = (await createTag(t, alice.token, 'second')).id
  const made = async (token: string, body: Record<string, unknown>) =>
    (await createLink(t, token, { url: `https://example.com/${Math.random()}`, ...body })).id
  link.own = await made(alice.token, { tag_ids: [tag.first, tag.second] })
  link.inA = await made(alice.token, { organization_id: org.a, tag_ids: [tag.first] })
  link.inB = await made(alice.token, { organization_id: org.b, tag_ids: [tag.second] })
  link.bobs = await made(bob.token, { team_ids: [team.id] })
  link.inC = await made(bob.token, { organization_id: org.c, team_ids: [team.id] })
  await tagOn(link.bobs, tag.first)
  for (const tagId of [tag.first, tag.second]) await tagOn(link.inC, tagId)
})

describe('tag link counts kept by owner', () => {
  it('equal the tagged links their owner sees, within each boundary, after every write', async () => {
    await expectCountsAsSeen('as made')
    expect(await listed(alice.user.id, undefined)).toEqual({ [tag.first]: 4, [tag.second]: 3 })

    await t.deps.db
      .deleteFrom('link_tags')
      .where('link_id', '=', link.own)
      .where('tag_id', '=', tag.second)
      .execute()
    await expectCountsAsSeen('a tag taken off')
    await tagOn(link.own, tag.second)
    await expectCountsAsSeen('put on again')

    const moveTo = (
      linkId: string,
      owner: { user_id: string | null; organization_id: string | null },
    ) => t.deps.db.updateTable('links').set(owner).where('id', '=', linkId).execute()
    await moveTo(link.own, { user_id: null, organization_id: org.a })
    await expectCountsAsSeen('a personal link moved to an organization')
    await moveTo(link.inA, { user_id: bob.user.id, organization_id: null })
    await expectCountsAsSeen('an organization link moved to another person')
    await moveTo(link.inA, { user_id: null, organization_id: org.c })
    await expectCountsAsSeen('moved on to an organization shared nothing')
    // Another column changed: the counts stay.
    await t.deps.db
      .updateTable('links')
      .set({ title: 'renamed' })
      .where('id', '=', link.own)
      .execute()
    await expectCountsAsSeen('a title changed')

    await t.deps.db
      .deleteFrom('organization_members')
      .where('organization_id', '=', org.b)
      .where('user_id', '=', alice.user.id)
      .execute()
    await expectCountsAsSeen('a membership ended')
    await t.deps.db.deleteFrom('link_teams').where('link_id', '=', link.bobs).execute()
    await expectCountsAsSeen('a team share ended')

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/links/${link.own}`,
      headers: bearer(alice.token),
    })
    expect(deleted.statusCode, deleted.body).toBe(204)
    await expectCountsAsSeen('a link deleted through the API')
    const restored = await t.app.inject({
      method: 'POST',
      url: `/api/links/deleted/${link.own}/restore`,
      headers: bearer(alice.token),
      payload: {},
    })
    expect(restored.statusCode, restored.body).toBe(200)
    await expectCountsAsSeen('restored with its tags')
    expect((await listed(alice.user.id, undefined))[tag.first]).toBeGreaterThan(0)
    await t.deps.db.deleteFrom('links').where('id', '=', link.inC).execute()
    await expectCountsAsSeen('a link deleted with its tags')
    await t.deps.db.deleteFrom('tags').where('id', '=', tag.second).execute()
    await expectCountsAsSeen('a tag deleted')
    const left = await sql<{ n: number | string }>`select count(*) as n from tag_link_counts
      where tag_id = ${tag.second}`.execute(t.deps.db)
    expect(Number(left.rows[0]!.n)).toBe(0)
  })

  it('migration 0122 counts the tags already on links; down removes the counts and triggers', async () => {
    const db = t.deps.db as unknown as Kysely<unknown>
    const before = await keptAndGroupedTagCounts(t)
    await down(db, t.database.engine)
    const tables = await t.deps.db.introspection.getTables()
    expect(tables.map((table) => table.name)).not.toContain('tag_link_counts')
    // Written without the triggers: the migration counts them.
    await tagOn(link.bobs, tag.first).catch(() => undefined)
    const extra = await createTag(t, alice.token, 'after')
    await tagOn(link.own, extra.id)
    await up(db, t.database.engine)
    const [stored, grouped] = await keptAndGroupedTagCounts(t)
    expect(stored).toEqual(grouped)
    expect(stored.length).toBeGreaterThan(before[0].length)
    await expectCountsAsSeen('after the migration')
  })
})
