/**
 * Looking people up at a company's size: 5,000 people (SCIM-provisioned, with family names) beside
 * 100,000 links, each statement explained on its engine. The administrators' user search
 * (GET /api/admin/users?q=) reads its candidates from trigrams (PostgreSQL pg_trgm, SQLite FTS5)
 * instead of every user, and SCIM's `name.familyName eq` (a lookup Okta and Entra make) reads the
 * lower-cased family name's index instead of every account.
 */
import { sql, type Insertable } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ScimUsersTable } from '../../db/schema.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bareUserRow,
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import {
  analyzeIfPostgres,
  insertLinksInBulk,
  postgresPlanOf,
  sqlitePlanOf,
  statementsOf,
  type Statement,
} from '../../../test/helpers/query-plans.js'
import { scimClient, type ScimClient } from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0', SCIM_RATE_LIMIT: '100000' } })
const PEOPLE = 5_000
const BATCH = 500
let admin: TestUser & SignedIn
let scim: ScimClient

/** Person i: `person-<i>@corp.example`, named `Given<i> Ölund<i>`, every 400th a `Quokka`. */
const idOf = (i: number) => `person-${String(i).padStart(4, '0')}`
const nameOf = (i: number) => (i % 400 === 0 ? `Quokka Given${i}` : `Given${i} Ölund${i}`)

beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  scim = await scimClient(t)
  const start = Date.parse('2026-01-01T00:00:00.000Z')
  for (let first = 0; first < PEOPLE; first += BATCH) {
    const rows = []
    const scimRows: Array<Insertable<ScimUsersTable>> = []
    for (let i = first; i < Math.min(PEOPLE, first + BATCH); i++) {
      const at = new Date(start + i * 1000).toISOString()
      const id = idOf(i)
      rows.push({ ...bareUserRow(id, at), email: `${id}@corp.example`, name: nameOf(i) })
      scimRows.push({
        user_id: id,
        user_name: `${id}@corp.example`,
        user_name_lower: `${id}@corp.example`,
        given_name: `Given${i}`,
        family_name: `Ölund${i % 2_500}`,
        family_name_lower: `ölund${i % 2_500}`,
      })
    }
    await t.deps.db.insertInto('users').values(rows).execute()
    await t.deps.db.insertInto('scim_users').values(scimRows).execute()
  }
  for (let part = 0; part < 5; part++)
    await insertLinksInBulk(t, {
      prefix: `bulk${part}`,
      count: 20_000,
      owner: { userId: idOf(part) },
    })
  await analyzeIfPostgres(t)
  if (t.database.engine === 'postgres') await sql`analyze scim_users`.execute(t.deps.db)
}, 300_000)

async function searchUsers(q: string, limit = 50, cursor?: string) {
  const query = { q, limit: String(limit), ...(cursor !== undefined && { cursor }) }
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/admin/users?${new URLSearchParams(query).toString()}`,
    headers: bearer(admin.token),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{
    items: { id: string; email: string; name: string }[]
    next_cursor: string | null
  }>()
}

/** The search's statement: the trigram LIKE on PostgreSQL, the FTS5 table on SQLite. */
const SEARCH_STATEMENT = /users_fts|from "users".* like /s

/** On PostgreSQL no table of people is read whole and few buffers are touched. */
async function expectPostgresIndexed(statement: Statement, index: RegExp): Promise<void> {
  const plan = await postgresPlanOf(t, statement)
  expect(plan.text, plan.text).toMatch(index)
  expect(plan.seqScans, plan.text).not.toContain('users')
  expect(plan.seqScans, plan.text).not.toContain('scim_users')
  // Reading every user touched over 100 buffers.
  expect(plan.buffers, plan.text).toBeLessThan(100)
}

describe(`GET /api/admin/users?q= with ${PEOPLE} people and 100,000 links`, () => {
  it('reads a word’s matches through the trigram index and lists exactly those people', async () => {
    const statements = await statementsOf(SEARCH_STATEMENT, () => searchUsers('quokka'))
    expect(statements).toHaveLength(1)
    const statement = statements[0]!
    if (t.database.engine === 'postgres') {
      await expectPostgresIndexed(statement, /users_search_lower_trgm_idx/)
    } else {
      // The page is decided in the search rows, each read by its integer key; then the page's
      // users by their ids. No table is read whole.
      const plan = await sqlitePlanOf(t, statement)
      const text = plan.join('\n')
      // The phrase decides: no LIKE reads each match's user.
      expect(statement.text).not.toMatch(/ like /i)
      // Ordered and cut twice: the matches' search rows, then the page's users.
      expect(
        plan.filter((step) => step === 'USE TEMP B-TREE FOR ORDER BY'),
        text,
      ).toHaveLength(2)
      expect(text).toMatch(/SCAN users_fts VIRTUAL TABLE INDEX/)
      expect(text).toMatch(/SEARCH user_search_rows USING INTEGER PRIMARY KEY \(rowid=\?\)/)
      expect(text).toMatch(/SEARCH users USING INDEX sqlite_autoindex_users_1 \(id=\?\)/)
      expect(
        plan.filter((step) => /^SCAN (users|user_search_rows)\b/.test(step)),
        text,
      ).toEqual([])
    }
    const found = await searchUsers('quokka')
    const expected = Array.from({ length: Math.ceil(PEOPLE / 400) }, (_, k) =>
      idOf(k * 400),
    ).reverse()
    expect(found.items.map((item) => item.id)).toEqual(expected)
  })

  it('reads the trigram index for a prefix every email shares but a few digits', async () => {
    // "person-424": all but one of its trigrams are in all 5,000 emails; on PostgreSQL, reading
    // every person was the planner's choice while each column had an index of its own. (SQLite
    // prepares a text once: its plan is the one the test above holds.)
    if (t.database.engine === 'postgres') {
      const statements = await statementsOf(SEARCH_STATEMENT, () => searchUsers('person-424'))
      expect(statements).toHaveLength(1)
      await expectPostgresIndexed(statements[0]!, /users_search_lower_trgm_idx/)
    }
    const found = await searchUsers('person-424')
    expect(found.items.map((item) => item.id)).toEqual(
      [4249, 4248, 4247, 4246, 4245, 4244, 4243, 4242, 4241, 4240].map(idOf),
    )
  })

  it('pages a search by its cursor, newest first, without a person twice', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    for (let page = 0; page < 5; page++) {
      const found = await searchUsers('person-424', 4, cursor)
      seen.push(...found.items.map((item) => item.id))
      if (found.next_cursor === null) break
      cursor = found.next_cursor
    }
    expect(seen).toEqual([4249, 4248, 4247, 4246, 4245, 4244, 4243, 4242, 4241, 4240].map(idOf))
  })

  it('folds the case of letters beyond ASCII, on both engines', async () => {
    const ids = async (q: string) => (await searchUsers(q)).items.map((item) => item.id).sort()
    const expected = [123, 1230, 1231, 1232, 1233, 1234, 1235, 1236, 1237, 1238, 1239].map(idOf)
    expect(await ids('ölund123')).toEqual(expected.sort())
    expect(await ids('ÖLUND123')).toEqual(expected.sort())
  })

  it('finds a prefix of an email, and a name ignoring case, among 5,000', async () => {
    const byEmail = await searchUsers('person-4242@')
    expect(byEmail.items.map((item) => item.id)).toEqual([idOf(4242)])
    const byName = await searchUsers('ÖLUND123')
    expect(byName.items.map((item) => item.id).sort()).toEqual(
      [123, 1230, 1231, 1232, 1233, 1234, 1235, 1236, 1237, 1238, 1239].map(idOf).sort(),
    )
    expect((await searchUsers('nobody-here')).items).toEqual([])
  })
})

describe(`SCIM name.familyName eq with ${PEOPLE} people`, () => {
  const path = (value: string) =>
    `/Users?filter=${encodeURIComponent(`name.familyName eq "${value}"`)}&count=100`

  it('reads the lower-cased family name’s index and finds exactly its people', async () => {
    const statements = await statementsOf(/family_name_lower/, () =>
      scim.request('GET', path('ÖLUND42')),
    )
    expect(statements.length).toBeGreaterThan(0)
    for (const statement of statements) {
      if (t.database.engine === 'postgres') {
        await expectPostgresIndexed(statement, /scim_users_family_name_lower_idx/)
      } else {
        const plan = (await sqlitePlanOf(t, statement)).join('\n')
        expect(plan).toMatch(/SEARCH scim_users USING (COVERING )?INDEX scim_users_family_name/)
        expect(plan).not.toMatch(/SCAN (users|scim_users)\b/)
      }
    }
    const response = await scim.request('GET', path('ölund42'))
    expect(response.statusCode).toBe(200)
    const body = response.json<{ totalResults: number; Resources: { userName: string }[] }>()
    expect(body.totalResults).toBe(2)
    expect(body.Resources.map((r) => r.userName)).toEqual([
      `${idOf(42)}@corp.example`,
      `${idOf(2542)}@corp.example`,
    ])
  })

  it('keeps the copy in step when SCIM writes a family name', async () => {
    const created = await scim.request('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'new.person@corp.example',
      name: { givenName: 'New', familyName: 'ΣΊΣΥΦΟΣ' },
      emails: [{ value: 'new.person@corp.example', primary: true }],
      active: true,
    })
    expect(created.statusCode).toBe(201)
    const found = await scim.request('GET', path('σίσυφος'))
    expect(found.json<{ totalResults: number }>().totalResults).toBe(1)
    const row = await t.deps.db
      .selectFrom('scim_users')
      .select('family_name_lower')
      .where('user_name', '=', 'new.person@corp.example')
      .executeTakeFirstOrThrow()
    expect(row.family_name_lower).toBe('ΣΊΣΥΦΟΣ'.toLowerCase())
  })
})
