/**
 * The tag list's counts at a company's size (docs/decisions/0086-tag-link-counts-kept-by-owner.md):
 * 100,000 links, the person's 200 tags on 100 of their own links and 100 of their organization's
 * each, strangers' tags on their own links, 50,000 counts of other tags, and a stranger's links
 * shared with the person's team and tagged by them. `GET /api/tags?limit=200` reads the stored
 * counts by their key and the shared links by theirs — never the tagged links by tag, never a
 * table whole — and answers each tag's count of the links the person sees.
 */
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createOrganization } from '../../../test/helpers/organizations.js'
import {
  insertCompanyLinks,
  numberedRows,
  postgresPlanOf,
  sqlitePlanOf,
  statementsOf,
} from '../../../test/helpers/query-plans.js'
import { insertTags } from '../../../test/helpers/tags.js'
import { addTeamMember, createTeam } from '../../../test/helpers/teams.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const TAGS = 200
const SHARED = 30

let person: Awaited<ReturnType<typeof createSignedInUser>>
/** The person's tag ids: `<mine>-<k>`. */
let mine: string

/** Tags the links `<links>-1` … `<links>-<count>` with `<tags>-<n mod tagCount>`. */
async function tagLinks(links: string, count: number, tags: string, tagCount: number) {
  const { head, from, text } = numberedRows(t, count)
  const k = text(sql`s.i % ${sql.lit(tagCount)}`)
  await sql`${head} insert into link_tags (link_id, tag_id)
    select ${links} || '-' || ${text(sql`s.i`)}, ${tags} || '-' || ${k} ${from}`.execute(t.deps.db)
}

/** `count` more tags of the strangers, each with a count: the tags and counts others keep. */
async function insertCrowdTags(count: number): Promise<void> {
  const { head, from, text } = numberedRows(t, count)
  const n = text(sql`s.i`)
  const owner = sql`'stranger-s' || ${text(sql`1 + s.i % 3`)}`
  const now = new Date().toISOString()
  await sql`${head} insert into tags (id, user_id, name, name_key, color, created_at, updated_at)
    select 'crowd-' || ${n}, ${owner}, 'crowd ' || ${n}, 'crowd ' || ${n}, null, ${now}, ${now}
    ${from}`.execute(t.deps.db)
  await sql`insert into tag_link_counts (tag_id, owner_id, link_count)
    select id, user_id, 7 from tags where id like 'crowd-%'`.execute(t.deps.db)
}

beforeAll(async () => {
  const admin = await createSignedInUser(t, { isAdmin: true })
  person = await createSignedInUser(t)
  const organization = await createOrganization(t, person.token)
  await insertCompanyLinks(t, { userId: person.user.id, organizationId: organization.id }, 'Kea')
  mine = `${person.user.id}-tag`
  await insertTags(t, person.user.id, TAGS, (k) => `mine ${k}`)
  await tagLinks('mine', 20_000, mine, TAGS)
  await tagLinks('team', 20_000, mine, TAGS)
  for (const stranger of ['stranger-s1', 'stranger-s2', 'stranger-s3']) {
    await insertTags(t, stranger, 20, (k) => `theirs ${k}`)
    await tagLinks(stranger, 20_000, `${stranger}-tag`, 20)
  }
  // A company's other tags, with their counts: 50,000 more of each.
  await insertCrowdTags(50_000)
  // A stranger's links shared with the person's team, each tagged by the person.
  const team = await createTeam(t, admin.token)
  await addTeamMember(t, admin.token, team.id, person.user.id)
  const shared = Array.from({ length: SHARED }, (_, i) => `stranger-s1-${i + 1}`)
  await t.deps.db
    .insertInto('link_teams')
    .values(
      shared.map((linkId) => ({
        link_id: linkId,
        team_id: team.id,
        slug_key: null,
        shared_at: new Date().toISOString(),
      })),
    )
    .execute()
  await t.deps.db
    .insertInto('link_tags')
    .values(shared.map((linkId) => ({ link_id: linkId, tag_id: `${mine}-0` })))
    .execute()
  if (t.database.engine === 'postgres')
    await sql`analyze links, tags, link_tags, tag_link_counts, link_teams, team_members,
      organization_members`.execute(t.deps.db)
}, 240_000)

describe('GET /api/tags at 100,000 links', () => {
  it('counts from the stored counts and the shared links by key, each tag exactly', async () => {
    let answer: { items: Array<{ id: string; link_count: number }> } | undefined
    const statements = await statementsOf(/tag_link_counts/, async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/tags?limit=${TAGS}`,
        headers: bearer(person.token),
      })
      expect(response.statusCode, response.body).toBe(200)
      answer = response.json()
    })
    expect(statements).toHaveLength(1)
    const counts = new Map(answer!.items.map((tag) => [tag.id, tag.link_count]))
    expect(counts.size).toBe(TAGS)
    // 100 of the person's links and 100 of their organization's each; tag 0 also the shared.
    expect(counts.get(`${mine}-0`)).toBe(200 + SHARED)
    for (let k = 1; k < TAGS; k++) expect(counts.get(`${mine}-${k}`)).toBe(200)
    if (t.database.engine === 'postgres') {
      const plan = await postgresPlanOf(t, statements[0]!)
      // Only tables of a few rows here (memberships, shares) may be read whole.
      for (const table of ['links', 'link_tags', 'tag_link_counts', 'tags'])
        expect(plan.seqScans, plan.text).not.toContain(table)
      expect(plan.text).not.toContain('link_tags_tag_idx')
      expect(plan.buffers, plan.text).toBeLessThan(2_000)
    } else {
      const plan = (await sqlitePlanOf(t, statements[0]!)).join('\n')
      expect(plan).toMatch(/SEARCH tag_link_counts USING INDEX \w+ \(tag_id=\?/)
      expect(plan).toMatch(/SEARCH link_tags USING (COVERING )?INDEX \w+ \(link_id=\?/)
      expect(plan).not.toMatch(/^SCAN (link_tags|links|tag_link_counts)\b/m)
      expect(plan).not.toContain('link_tags_tag_idx')
    }
  })
})
