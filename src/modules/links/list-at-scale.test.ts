/**
 * The Links list at a company's size: 100,000 links (the person's 20,000, their organization's
 * 20,000, strangers' 60,000), a word in 1 of 400 titles, each statement explained on its engine.
 * A page (the first, or one deep in the list by cursor) reads each owner's newest links from its
 * index instead of all 40,000 visible ones; from 3 characters on, a search (GET /api/links?q=)
 * reads its candidates from trigrams (PostgreSQL pg_trgm, SQLite FTS5 — whose table also decides
 * the page, so SQLite reads links for the page's rows only), and a rare term of two characters
 * from SQLite's trigram vocabulary and PostgreSQL's index of character pairs; on SQLite a term in
 * most titles is found by walking the person's newest links instead, the pinned ones from the
 * pins, and a count stops past 1,000. Shorter terms and characters with a meaning to LIKE or FTS5
 * still find what they contain.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { encodeCursor } from '../../lib/pagination.js'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, type SignedIn, type TestUser } from '../../../test/helpers/factories.js'
import {
  createLink,
  createTag,
  importJsonLinks,
  listAllLinks,
  type ImportJson,
  type ListedLink,
} from '../../../test/helpers/links.js'
import { createOrganizationMember } from '../../../test/helpers/organizations.js'
import {
  analyzeIfPostgres,
  insertCompanyLinks,
  postgresGenericPlanOf,
  postgresPlanOf,
  sqlitePlanOf,
  sqliteReadsDuring,
  statementsOf,
  type Statement,
} from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const WORD = 'Quokka'
const PERSONS_TAGS = 200

let user: TestUser & SignedIn
let organizationId: string
const special: Record<string, string> = {}
/** The person's tags: tag k is on their links mine-n with n ≡ k (mod 200), 100 of them each. */
const tagIds: string[] = []
/** The statement of a link view's extras (view-extras.repo.ts), as a new link's view ran it. */
let extrasStatement: Statement | undefined

beforeAll(async () => {
  ;({ member: user, organizationId } = await createOrganizationMember(t))
  await insertCompanyLinks(t, { userId: user.user.id, organizationId }, WORD)
  // A person who tags keeps many tags, each on many links (here each of their 20,000 links has one
  // of 200): the page's extras must read the page's tags, not each of the person's.
  for (let n = 0; n < PERSONS_TAGS; n++)
    tagIds.push((await createTag(t, user.token, `topic ${n}`)).id)
  for (let first = 1; first <= 20_000; first += 1000) {
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      link_id: `mine-${first + i}`,
      tag_id: tagIds[(first + i) % PERSONS_TAGS]!,
    }))
    await t.deps.db.insertInto('link_tags').values(rows).execute()
  }
  const titles = ['Zq!', '100% sure', 'say "hi" now', 'Ärger_im Büro']
  const caught = await statementsOf(/'tag' as kind/, async () => {
    for (const [index, title] of titles.entries()) {
      const link = await createLink(t, user.token, {
        url: `https://special.example/${index}`,
        title,
        tag_ids: tagIds.slice(index * 3, index * 3 + 3),
      })
      special[title] = link.id
    }
  })
  extrasStatement = caught[0]
  await analyzeIfPostgres(t)
}, 300_000)

async function search(q: string, cursor?: string, pinned?: boolean) {
  const query = new URLSearchParams({
    q,
    limit: '50',
    ...(cursor !== undefined && { cursor }),
    ...(pinned !== undefined && { pinned: String(pinned) }),
  })
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/links?${query.toString()}`,
    headers: bearer(user.token),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{ items: { id: string; title: string }[]; next_cursor: string | null }>()
}

/** The person's visible links in the list's order, read plainly: the reference for the pages. */
async function visibleInOrder(): Promise<{ id: string; created_at: string }[]> {
  const rows = await sql<{ id: string; created_at: string | Date }>`select id, created_at
    from links where user_id = ${user.user.id} or organization_id = ${organizationId}
    order by created_at desc, id desc`.execute(t.deps.db)
  return rows.rows.map((row) => ({
    id: row.id,
    created_at: new Date(row.created_at).toISOString(),
  }))
}

async function page(cursor?: string) {
  const query = new URLSearchParams({ limit: '50', ...(cursor !== undefined && { cursor }) })
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/links?${query.toString()}`,
    headers: bearer(user.token),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{ items: { id: string }[]; next_cursor: string | null }>()
}

/** The statement reads each owner's newest links from its index, not every visible link. */
async function expectPerOwner(statement: Statement): Promise<void> {
  if (t.database.engine === 'postgres') {
    // Planned for its values, and for any values: prepared once, it keeps the latter.
    for (const plan of [
      await postgresPlanOf(t, statement),
      await postgresGenericPlanOf(t, statement),
    ]) {
      expect(plan.seqScans).not.toContain('links')
      // Each owner's 51 newest from its index, and the page's 51 links read once (220 buffers;
      // reading each owner's 51 links before choosing touched 425), whatever the number of
      // links; reading the 40,000 visible links and sorting them touched 1,826.
      expect(plan.buffers, plan.text).toBeLessThan(300)
    }
  } else {
    const plan = (await sqlitePlanOf(t, statement)).join('\n')
    expect(plan).not.toMatch(/MULTI-INDEX OR|SCAN links\b/)
    expect(plan).toMatch(/SEARCH links USING (COVERING )?INDEX links_user_created_idx/)
    expect(plan).toMatch(/SEARCH links USING (COVERING )?INDEX links_org_created_idx/)
  }
}

/**
 * The page's tags, clicks, teams and pins are one statement that reads each table by the page's
 * ids (or the person's memberships), never a whole table.
 */
async function expectExtrasByPage(statement: Statement): Promise<void> {
  expect(statement.text).toMatch(/union all/)
  if (t.database.engine === 'postgres') {
    const plan = await postgresPlanOf(t, statement)
    expect(plan.seqScans).not.toContain('links')
    // About two buffers per id of the page for its tags (the link_tags primary key) and the
    // person's tags once; probing link_tags once per tag of the person's 200 read 225.
    expect(plan.buffers, plan.text).toBeLessThan(150)
    // Planned for any page, each of its ids is probed in link_tags and link_clicks by their keys
    // (two buffers each: about 300 in all), whatever the number of links, tags and clicks.
    const generic = await postgresGenericPlanOf(t, statement)
    for (const table of ['links', 'link_tags', 'link_clicks'])
      expect(generic.seqScans).not.toContain(table)
    expect(generic.buffers, generic.text).toBeLessThan(400)
  } else {
    const plan = await sqlitePlanOf(t, statement)
    expect(plan.filter((step) => /^SCAN /.test(step) && !/^SCAN json_each\b/.test(step))).toEqual(
      [],
    )
    for (const table of ['link_tags', 'link_clicks', 'link_teams', 'collection_links', 'link_pins'])
      expect(plan.join('\n')).toMatch(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX`))
    // The page's tags by link, each one's owner checked; not the person's tags each probed for
    // the page's ids, which grows with every tag they keep.
    expect(plan).toContain(
      'SEARCH link_tags USING COVERING INDEX sqlite_autoindex_link_tags_1 (link_id=?)',
    )
    expect(plan.join('\n')).not.toMatch(/SEARCH tags USING INDEX tags_user/)
  }
}

describe('GET /api/links with 100,000 links', () => {
  it('reads the first page per owner, and it is the newest 50 visible links', async () => {
    const statements = await statementsOf(/from "links"|'tag' as kind/, () => page())
    const [list, ...others] = statements
    expect(list!.text).toMatch(/from "links"/)
    await expectPerOwner(list!)
    // SQLite prepared the extras' one text when the links above were created.
    expect(others).toHaveLength(t.database.engine === 'postgres' ? 1 : 0)
    await expectExtrasByPage(others[0] ?? extrasStatement!)
    const expected = (await visibleInOrder()).slice(0, 50).map((row) => row.id)
    expect((await page()).items.map((item) => item.id)).toEqual(expected)
  })

  it('reads a page 30,000 links deep per owner, and it is the next 50 after the cursor', async () => {
    const all = await visibleInOrder()
    const last = all[29_999]!
    const cursor = encodeCursor([last.created_at, last.id])
    const statements = await statementsOf(/from "links"/, () => page(cursor))
    await expectPerOwner(statements[0]!)
    const deep = await page(cursor)
    expect(deep.items.map((item) => item.id)).toEqual(all.slice(30_000, 30_050).map((r) => r.id))
    expect(deep.next_cursor).not.toBeNull()
  })
})

describe('GET /api/links?tag_id= with 100,000 links', () => {
  const listAll = (query: string) => listAllLinks(t, user.token, query)

  /** Read from the tag's links: by the tag's index, then each link by its key. */
  async function expectFromTheTag(statement: Statement): Promise<void> {
    if (t.database.engine === 'postgres') {
      // Each of the 40,000 visible links tested for the tag would be thousands of buffers.
      const plan = await postgresPlanOf(t, statement)
      expect(plan.seqScans).not.toContain('links')
      expect(plan.buffers, plan.text).toBeLessThan(1000)
    } else {
      const plan = await sqlitePlanOf(t, statement)
      expect(plan[0], plan.join('\n')).toBe(
        'SEARCH links USING INDEX sqlite_autoindex_links_1 (id=?)',
      )
      expect(plan.join('\n')).toMatch(/SEARCH link_tags USING (COVERING )?INDEX link_tags_tag_idx/)
    }
  }

  it('reads a tag’s links by the tag, not each visible link, and lists exactly them', async () => {
    const tag = tagIds[7]!
    const statements = await statementsOf(/from "links"/, () => listAll(`tag_id=${tag}`))
    await expectFromTheTag(statements[0]!)
    const tagged = await t.deps.db
      .selectFrom('link_tags')
      .select('link_id')
      .where('tag_id', '=', tag)
      .execute()
    const ids = new Set(tagged.map((row) => row.link_id))
    // mine-n with n ≡ 7 (mod 200), and the special link the tag was given above.
    expect(ids.size).toBe(101)
    const expected = (await visibleInOrder()).filter((row) => ids.has(row.id)).map((row) => row.id)
    expect((await listAll(`tag_id=${tag}`)).map((item) => item.id)).toEqual(expected)
  })

  it('tests a tag’s links for a term in nearly every title, not the term’s 100,000 matches', async () => {
    const tag = tagIds[9]!
    const statements = await statementsOf(/from "links"/, () => listAll(`tag_id=${tag}&q=link`))
    await expectFromTheTag(statements[0]!)
    // Each of the tag's links is tested (the index asked about one link where its text is not
    // ASCII); the term's matches are not collected.
    if (t.database.engine === 'sqlite')
      expect(statements[0]!.text).not.toMatch(/in \(select links_fts\.rowid from links_fts/)
    const tagged = await listAll(`tag_id=${tag}`)
    const contains = (item: ListedLink) =>
      [item.title, item.url, item.slug ?? ''].some((text) => text.toLowerCase().includes('link'))
    const found = await listAll(`tag_id=${tag}&q=link`)
    expect(found.length).toBeGreaterThan(0)
    expect(found.map((item) => item.id)).toEqual(tagged.filter(contains).map((item) => item.id))
    // A word in 1 title of 400: the tag's links that hold it, and no other.
    const rare = await listAll(`tag_id=${tag}&q=${WORD.toLowerCase()}`)
    expect(rare.map((item) => item.id)).toEqual(
      tagged.filter((item) => item.title.includes(WORD)).map((item) => item.id),
    )
    const count = await t.app.inject({
      method: 'GET',
      url: `/api/links/count?tag_id=${tag}&q=link`,
      headers: bearer(user.token),
    })
    expect(count.json()).toEqual({ total: found.length, capped: false })
  })
})

describe('GET /api/links/export with 100,000 links', () => {
  it('reads the tags of each page of links by the links, not once per tag of the person', async () => {
    let exported: { links: { title: string; tags: string[] }[] } | undefined
    const statements = await statementsOf(/from "link_tags"/, async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/links/export?format=json',
        headers: bearer(user.token),
      })
      expect(response.statusCode).toBe(200)
      exported = response.json()
    })
    // The newest link is the last special one, with the person's tags 9 to 11, by name.
    expect(exported!.links[0]).toMatchObject({
      title: 'Ärger_im Büro',
      tags: ['topic 10', 'topic 11', 'topic 9'],
    })
    expect(statements.length).toBeGreaterThan(0)
    // PostgreSQL chooses by its statistics: here, where every link_tags row is one of the
    // person's tags, it reads that table whole once per page of 200 links.
    if (t.database.engine === 'sqlite') {
      const plan = await sqlitePlanOf(t, statements[0]!)
      expect(plan).toContain(
        'SEARCH link_tags USING COVERING INDEX sqlite_autoindex_link_tags_1 (link_id=?)',
      )
      expect(plan.join('\n')).not.toMatch(/SEARCH tags USING INDEX tags_user/)
    }
  })
})

describe('GET /api/links?q= with 100,000 links', () => {
  it('reads a word’s matches through the trigram index and lists exactly the visible ones', async () => {
    const statements = await statementsOf(/from "links".* (like|match) /s, () =>
      search(WORD.toLowerCase()),
    )
    expect(statements).toHaveLength(1)
    const statement = statements[0]!
    if (t.database.engine === 'postgres') {
      const plan = await postgresPlanOf(t, statement)
      // One index over the stored lower-cased copy; no lower() per candidate.
      expect(plan.text, plan.text).toMatch(/links_search_lower_trgm_idx/)
      expect(statement.text).toMatch(/"links"\."search_lower" like lower\(/)
      expect(statement.text).not.toMatch(/lower\("links"\."title"\)/)
      expect(plan.seqScans).not.toContain('links')
      // The owners' indexes would read the 40,000 visible links: over 1,000 buffers.
      expect(plan.buffers, plan.text).toBeLessThan(400)
    } else {
      // The trigram index finds the matches and their search rows, read by integer key, decide the
      // page (visibility, order, limit); links is read by id for the page's rows only, not for each
      // of the 250 matches.
      const plan = await sqlitePlanOf(t, statement)
      expect(plan.join('\n')).toMatch(/SCAN links_fts VIRTUAL TABLE INDEX/)
      expect(plan).toContain('SEARCH link_search_rows USING INTEGER PRIMARY KEY (rowid=?)')
      expect(plan.filter((step) => /^SCAN (links|link_search_rows)\b/.test(step))).toEqual([])
      expect(plan).toContain('SEARCH links USING INDEX sqlite_autoindex_links_1 (id=?)')
      expect(statement.text).toMatch(/from link_search_rows where .* order by .* limit \?\)/s)
      expect(statement.text).not.toMatch(/ like /)
    }
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await search(WORD.toLowerCase(), cursor)
      for (const item of page.items) {
        expect(item.title).toContain(WORD)
        seen.push(item.id)
      }
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    const expected = [400, 800, 1200].flatMap((i) => [`mine-${i}`, `team-${i}`])
    expect(seen).toHaveLength(100)
    expect(new Set(seen).size).toBe(100)
    expect(seen.slice(0, 6).sort()).toEqual(expected.sort())
  })

  it('walks the newest visible links for a term in nearly every title, and stops at the page', async () => {
    // "link" is in 99,750 of the 100,000 titles ("Link <n>"), and in one with the Kelvin sign,
    // which the trigram index folds to "k" and LIKE does not.
    const kelvin = await createLink(t, user.token, {
      url: 'https://special.example/kelvin',
      title: 'Lin\u212A sign',
    })
    try {
      const statements = await statementsOf(/links_fts|"search_lower" like/, () => search('link'))
      const visible = (await visibleInOrder()).filter(
        (row) => row.id === kelvin.id || /^(mine|team)-\d+$/.test(row.id),
      )
      const expected = visible.filter(
        (row) => row.id === kelvin.id || Number(row.id.split('-')[1]) % 400 !== 0,
      )
      const first = await search('link')
      expect(first.items.map((item) => item.id)).toEqual(expected.slice(0, 50).map((r) => r.id))
      const after = expected[20_000]!
      const deep = await search('link', encodeCursor([after.created_at, after.id]))
      expect(deep.items.map((item) => item.id)).toEqual(
        expected.slice(20_001, 20_051).map((r) => r.id),
      )
      if (t.database.engine === 'postgres') {
        // Read owner by owner, each owner's newest links filtered in its index's order: not the
        // trigram index's 99,750 matches, ordered (the whole table read, some 4,800 buffers at the
        // scale bench's size).
        const page = statements.find((statement) => /from "links"/.test(statement.text))!
        const plan = await postgresPlanOf(t, page)
        expect(plan.seqScans).not.toContain('links')
        expect(plan.text).toMatch(/links_user_created_idx/)
        expect(plan.text).not.toMatch(/links_search_lower_trgm_idx/)
        // Two owners' 1,001 newest: about 70 buffers, where every visible match is 40,000 links.
        expect(plan.buffers, plan.text).toBeLessThan(300)
      } else {
        // The owners' newest links, each tested: the index is asked about one link at a time, for a
        // link whose text is not ASCII.
        const walk = statements.find((statement) => /from "links"/.test(statement.text))!
        await expectPerOwner(walk)
        const plan = (await sqlitePlanOf(t, walk)).join('\n')
        expect(plan).not.toMatch(/SCAN link_search_rows\b/)
        expect(plan).toMatch(/SCAN links_fts VIRTUAL TABLE INDEX \d+:=M/)
      }
      // The Links screen and the palette ask for the pinned links and the others apart: the
      // pinned ones read from the person's pins, each tested; the others walked.
      const pin = (method: 'PUT' | 'DELETE') =>
        t.app.inject({ method, url: `/api/links/mine-5/pin`, headers: bearer(user.token) })
      expect((await pin('PUT')).statusCode).toBe(204)
      const pinnedStatements = await statementsOf(/link_pins/, () =>
        search('link', undefined, true),
      )
      expect((await search('link', undefined, true)).items.map((item) => item.id)).toEqual([
        'mine-5',
      ])
      expect((await search('link', undefined, false)).items.map((item) => item.id)).toEqual(
        expected
          .map((r) => r.id)
          .filter((id) => id !== 'mine-5')
          .slice(0, 50),
      )
      expect((await pin('DELETE')).statusCode).toBe(204)
      const pinnedPage = pinnedStatements.find((statement) => /from "links"/.test(statement.text))!
      if (t.database.engine === 'postgres') {
        const plan = await postgresPlanOf(t, pinnedPage)
        expect(plan.seqScans).not.toContain('links')
        expect(plan.buffers, plan.text).toBeLessThan(100)
      } else {
        const plan = await sqlitePlanOf(t, pinnedPage)
        expect(plan.slice(0, 3)).toEqual([
          'SEARCH links USING INDEX sqlite_autoindex_links_1 (id=?)',
          expect.stringMatching(/^LIST SUBQUERY/),
          'SEARCH link_pins USING COVERING INDEX sqlite_autoindex_link_pins_1 (user_id=?)',
        ])
        expect(plan.join('\n')).not.toMatch(/SCAN (links|link_search_rows)\b/)
        expect(plan.join('\n')).toMatch(/SCAN links_fts VIRTUAL TABLE INDEX \d+:=M/)
      }
      // The count stops past 1,000: "of 1,000+".
      const count = async (q: string) =>
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/links/count?q=${q}`,
            headers: bearer(user.token),
          })
        ).json<{ total: number; capped: boolean }>()
      const counting = await statementsOf(/links_fts|count\(\*\) as "total"/, async () =>
        expect(await count('link')).toEqual({ total: 1000, capped: true }),
      )
      if (t.database.engine === 'postgres') {
        // Each owner's newest links in its index's order, filtered, up to 1,001: a limit on the
        // general statement would have PostgreSQL read the links table from its start until it
        // found 1,001, the whole table where the person's links come last.
        expect(counting[0]!.text).toMatch(/owners_first/)
        const plan = await postgresPlanOf(t, counting[0]!)
        expect(plan.seqScans).not.toContain('links')
        expect(plan.text).not.toMatch(/links_search_lower_trgm_idx/)
        // Two owners' 1,001 newest: about 70 buffers, where every visible match is 40,000 links.
        expect(plan.buffers, plan.text).toBeLessThan(300)
      } else {
        // The trigram index hands the matches over one by one, each one's search row read by its
        // key, until the count is past 1,000: not every match collected first.
        const plan = await sqlitePlanOf(t, counting[0]!)
        expect(plan.slice(0, 3)).toEqual([
          'CO-ROUTINE matches',
          expect.stringMatching(/^SCAN links_fts VIRTUAL TABLE INDEX \d+:M/),
          'SEARCH link_search_rows USING INTEGER PRIMARY KEY (rowid=?)',
        ])
      }
      expect(await count(WORD)).toEqual({ total: 100, capped: false })
      // Without a term: the 40,002 visible links counted up to 1,001, owner by owner on PostgreSQL.
      const all = await statementsOf(/count\(\*\) as "total"/, async () => {
        const response = await t.app.inject({
          method: 'GET',
          url: '/api/links/count',
          headers: bearer(user.token),
        })
        expect(response.json()).toEqual({ total: 1000, capped: true })
      })
      if (t.database.engine === 'postgres') {
        expect(all[0]!.text).toMatch(/owners_first/)
        const plan = await postgresPlanOf(t, all[0]!)
        expect(plan.seqScans).not.toContain('links')
        expect(plan.buffers, plan.text).toBeLessThan(300)
      }
      // Common among all links (20,000 strangers' addresses), in none the person sees: on SQLite
      // the walk gives up and the index's matches decide; on PostgreSQL, owner by owner, each
      // owner's links are read from the index PostgreSQL expects to cost less.
      expect((await search('s1.example')).items).toEqual([])
      expect(await count('s1.example')).toEqual({ total: 0, capped: false })
    } finally {
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/api/links/${kelvin.id}`,
        headers: bearer(user.token),
      })
      expect(removed.statusCode).toBe(204)
    }
  })

  it('reads a term of 1 character in few titles from the index on SQLite', async () => {
    // "q" stands in the 250 titles with the word (one trigram, "quo"), 100 of them visible, and
    // in the text of a link made above.
    const { rows } = await sql<{ id: string }>`select id from links
      where (user_id = ${user.user.id} or organization_id = ${organizationId})
        and (lower(title) like '%q%' or lower(url) like '%q%' or lower(slug) like '%q%')
      order by created_at desc, id desc`.execute(t.deps.db)
    const expected = rows.map((row) => row.id)
    expect(expected.length).toBeGreaterThan(100)
    let pages = 0
    const paging = await sqliteReadsDuring(async () => {
      const found: string[] = []
      let cursor: string | undefined
      do {
        const page = await search('Q', cursor)
        pages++
        found.push(...page.items.map((item) => item.id))
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined)
      expect(found).toEqual(expected)
    })
    const counting = await sqliteReadsDuring(async () => {
      const counted = await t.app.inject({
        method: 'GET',
        url: '/api/links/count?q=Q',
        headers: bearer(user.token),
      })
      expect(counted.json()).toEqual({ total: expected.length, capped: false })
    })
    if (t.database.engine === 'postgres') return
    // Each page walks the newest 128 links first (one statement, with LIKE), gives up, and reads
    // the term's links from the index; the count reads them from the index alone.
    expect(paging.filter((text) => / like /.test(text))).toHaveLength(pages)
    expect(counting.filter((text) => / like /.test(text))).toEqual([])
    for (const reads of [paging, counting]) {
      const read = reads.find((text) => / match /.test(text) && !/limit 1000\)/.test(text))
      const plan = (await sqlitePlanOf(t, { text: read!, values: [] })).join('\n')
      expect(plan).toMatch(/SCAN links_fts VIRTUAL TABLE INDEX \d+:M/)
      expect(plan).not.toMatch(/SCAN (links|link_search_rows)\b/)
    }
  })

  it('reads a term of 2 characters in few titles from an index, not each link', async () => {
    // "qu" is in the 250 titles with the word, 100 of them visible.
    const expected = (await visibleInOrder())
      .filter((row) => /^(mine|team)-\d+$/.test(row.id) && Number(row.id.split('-')[1]) % 400 === 0)
      .map((row) => row.id)
    expect(expected).toHaveLength(100)
    const pairsRead = /link_search_pairs\(links\.search_lower\) @>/
    const pagesRead: Statement[] = []
    const paging = await sqliteReadsDuring(async () => {
      const caught = await statementsOf(pairsRead, async () => {
        const first = await search('qU')
        expect(first.items.map((item) => item.id)).toEqual(expected.slice(0, 50))
        const second = await search('qU', first.next_cursor!)
        expect(second.items.map((item) => item.id)).toEqual(expected.slice(50))
        expect(second.next_cursor).toBeNull()
      })
      pagesRead.push(...caught)
    })
    const countsRead: Statement[] = []
    const counting = await sqliteReadsDuring(async () => {
      const caught = await statementsOf(pairsRead, async () => {
        const response = await t.app.inject({
          method: 'GET',
          url: '/api/links/count?q=qU',
          headers: bearer(user.token),
        })
        expect(response.json()).toEqual({ total: 100, capped: false })
      })
      countsRead.push(...caught)
    })
    const unpinned = await search('qU', undefined, false)
    expect(unpinned.items.map((item) => item.id)).toEqual(expected.slice(0, 50))
    if (t.database.engine === 'postgres') {
      // The statistics make the term rare: the pages and the count read its 250 links from the
      // index of character pairs; testing the 40,002 visible links touched over 1,000 buffers.
      expect(pagesRead).toHaveLength(2)
      expect(countsRead).toHaveLength(1)
      for (const statement of [...pagesRead, ...countsRead]) {
        const plan = await postgresPlanOf(t, statement)
        expect(plan.text, plan.text).toMatch(/links_search_pairs_idx/)
        expect(plan.seqScans).not.toContain('links')
        expect(plan.buffers, plan.text).toBeLessThan(400)
      }
      return
    }
    // The vocabulary lists the index's trigrams that begin with the term, one look-up each; their
    // matches, counted up to 1,000, make the term rare: the page and the count are read from them
    // — the word search's statements — and no link is tested for the term (no LIKE).
    for (const reads of [paging, counting]) {
      const vocabulary = reads.filter((text) => /from links_fts_terms/.test(text))
      expect(vocabulary).toHaveLength(reads === paging ? 2 : 1)
      expect(reads.filter((text) => / like /.test(text))).toEqual([])
      const read = reads.find((text) => / match /.test(text) && !/limit 1000\)/.test(text))
      const plan = (await sqlitePlanOf(t, { text: read!, values: [] })).join('\n')
      expect(plan).toMatch(/SCAN links_fts VIRTUAL TABLE INDEX \d+:M/)
      expect(plan).toContain('SEARCH link_search_rows USING INTEGER PRIMARY KEY (rowid=?)')
      expect(plan).not.toMatch(/SCAN (links|link_search_rows)\b/)
    }
    const lookUp = await sqlitePlanOf(t, {
      text: paging.find((text) => /from links_fts_terms/.test(text))!,
      values: [],
    })
    expect(lookUp.filter((step) => /links_fts_terms/.test(step))).toEqual([
      expect.stringMatching(/^SCAN links_fts_terms VIRTUAL TABLE INDEX \d+:/),
      expect.stringMatching(/^SCAN links_fts_terms VIRTUAL TABLE INDEX \d+:/),
    ])
  })

  it('finds terms of 1 and 2 characters, LIKE’s wildcards, quotes and non-ASCII letters', async () => {
    const ids = async (q: string) => (await search(q)).items.map((item) => item.id)
    expect(await ids('zQ')).toEqual([special['Zq!']])
    expect(await ids('%')).toEqual([special['100% sure']])
    expect(await ids('0% s')).toEqual([special['100% sure']])
    expect(await ids('"hi"')).toEqual([special['say "hi" now']])
    expect(await ids('r_im')).toEqual([special['Ärger_im Büro']])
    expect(await ids('Büro')).toEqual([special['Ärger_im Büro']])
    expect((await ids('quokka 1600')).sort()).toEqual([
      'mine-1600',
      'mine-16000',
      'team-1600',
      'team-16000',
    ])
    expect(await ids('nowhere at all')).toEqual([])
  })
})

describe('an import into an owner of 20,000 links', () => {
  /** The import's look-up of the URLs the owner's links already point at, caught and explained. */
  async function urlLookup(organizationId: string | null, urls: string[]) {
    let report: ImportJson | undefined
    const statements = await statementsOf(/"links"\."url" in/, async () => {
      report = await importJsonLinks(
        t,
        user.token,
        urls.map((url) => ({ url })),
        { dry_run: true, ...(organizationId !== null && { organization_id: organizationId }) },
      )
    })
    expect(statements).toHaveLength(1)
    return { report: report!, statement: statements[0]! }
  }

  it.each([
    ['personal', 'mine', 'links_user_url_idx'],
    ['organization', 'team', 'links_org_url_idx'],
  ])('finds the %s links already saved by the owner’s URL index', async (_owner, prefix, index) => {
    const { report, statement } = await urlLookup(prefix === 'team' ? organizationId : null, [
      `https://${prefix}.example/10`,
      `https://${prefix}.example/19999`,
      `https://${prefix}.example/new-page`,
    ])
    expect(report.imported).toBe(1)
    expect(report.skipped.map((item) => item.reason)).toEqual(['duplicate_url', 'duplicate_url'])
    if (t.database.engine === 'postgres') {
      const plan = await postgresPlanOf(t, statement)
      expect(plan.text, plan.text).toContain(index)
      // The owner's index by creation time would read all 20,000 of the owner's links.
      expect(plan.buffers, plan.text).toBeLessThan(40)
    } else {
      const plan = await sqlitePlanOf(t, statement)
      expect(plan.join('\n'), plan.join('\n')).toMatch(new RegExp(`INDEX ${index} \\(`))
    }
  })
})
