/**
 * Sharing at a company's size: 100,000 links of 1,000 other people, 1,000 teams with 10,000
 * memberships, 20,000 links shared with teams and 1,000 collections of 20 links each shared with a
 * team. The person is in one team, which shares 50 links directly and one collection of 20. Each
 * statement that /go/<slug>, `GET /api/links?scope=shared` and `GET /api/links?collection_id=`
 * send is caught as it leaves the process and explained on its engine: none reads links, team
 * memberships, team shares or collections' links whole (no sequential scan on PostgreSQL, no SCAN
 * step on SQLite), and each answers exactly what the person sees; a term searched among the team's
 * links is tested on those links, not read from its matches among all 100,000.
 */
import { sql, type RawBuilder } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bareUserRow,
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, listAllLinks } from '../../../test/helpers/links.js'
import {
  postgresPlanOf,
  sqlitePlanOf,
  statementsOf,
  type Statement,
} from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const PEOPLE = 1000
const LINKS = 100_000
const TEAMS = 1000
const MEMBERS_PER_TEAM = 10
// As literals in the seeding SQL: a bound number's type is PostgreSQL's guess there.
const [people, teams, perTeam] = [PEOPLE, TEAMS, MEMBERS_PER_TEAM].map((n) => sql.lit(n))
/**
 * The tables that grow with links and people: none may be read whole. (A team's collections,
 * collection_teams, has one row per share — 1,000 here, a few pages — which PostgreSQL may rightly
 * hash whole; the buffers bound holds it.)
 */
const SHARING_TABLES = ['links', 'team_members', 'link_teams', 'collection_links']

let user: TestUser & SignedIn
let mine: string

/**
 * `insert into <into> <select> from <n rows numbered 0 … n-1 as s.i>`, on either engine
 * (PostgreSQL generate_series, SQLite a recursive CTE), 20,000 rows a statement: well inside the
 * pool's 10 s query timeout on a loaded machine.
 */
async function insertSeries(n: number, into: RawBuilder<unknown>, select: RawBuilder<unknown>) {
  for (let start = 0; start < n; start += 20_000) {
    const [from, to] = [sql.lit(start), sql.lit(Math.min(n, start + 20_000) - 1)]
    const statement =
      t.database.engine === 'postgres'
        ? sql`insert into ${into} ${select} from generate_series(${from}, ${to}) as s(i)`
        : sql`with recursive s(i) as (select ${from} union all select i + 1 from s where i < ${to})
            insert into ${into} ${select} from s`
    await statement.execute(t.deps.db)
  }
}

const text = (value: RawBuilder<unknown>) => sql`cast(${value} as text)`
const i = sql.ref('s.i')

/**
 * The world: person p (0 … 999) is `scale-p`; link i is person i % 1000's, go/go-<i / 1000>; team
 * t has people 10t … 10t + 9 (mod 1000); links i ≡ 1 (mod 5) are shared with team i % 1000;
 * collection c is person c's, holds links c + 1000·j (j = 50 … 69) and is shared with team c.
 * The person is in team 0, which also gets links 0, 1000, … 49,000 (go/go-0 … go/go-49) directly;
 * collection 0 gives them go/go-50 … go/go-69.
 */
async function seed(userId: string): Promise<void> {
  const now = new Date().toISOString()
  const postgres = t.database.engine === 'postgres'
  // A time the engine writes itself: a bound string would be text to PostgreSQL's INSERT … SELECT.
  const at = postgres ? sql`now()` : sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
  for (let start = 0; start < PEOPLE; start += 500)
    await t.deps.db
      .insertInto('users')
      .values(Array.from({ length: 500 }, (_, n) => bareUserRow(`scale-${start + n}`, now)))
      .execute()
  const createdAt = postgres
    ? sql`date_trunc('milliseconds', now()) - make_interval(secs => ${i})`
    : sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ${text(i)} || ' seconds')`
  const slug = sql`'go-' || ${text(sql`${i} / 1000`)}`
  await insertSeries(
    LINKS,
    sql`links (id, user_id, organization_id, created_by, url, title, slug, slug_key,
      forwarding_enabled, created_at, updated_at)`,
    sql`select 'scale-link-' || ${text(i)}, 'scale-' || ${text(sql`${i} % ${people}`)}, null, null,
      'https://scale.example/' || ${text(i)}, 'Link ' || ${text(i)}, ${slug}, ${slug},
      ${sql.lit(postgres ? true : 1)}, ${createdAt}, ${createdAt}`,
  )
  await insertSeries(
    TEAMS,
    sql`teams (id, name, name_key, created_at, updated_at)`,
    sql`select 'scale-team-' || ${text(i)}, 'Team ' || ${text(i)}, 'team ' || ${text(i)},
      ${at}, ${at}`,
  )
  await insertSeries(
    TEAMS * MEMBERS_PER_TEAM,
    sql`team_members (team_id, user_id, added_at)`,
    sql`select 'scale-team-' || ${text(sql`${i} / ${perTeam}`)},
      'scale-' || ${text(sql`${i} % ${people}`)}, ${at}`,
  )
  await t.deps.db
    .insertInto('team_members')
    .values({ team_id: 'scale-team-0', user_id: userId, added_at: now })
    .execute()
  // Links 1, 6, 11, … with the team of their number (never team 0).
  await insertSeries(
    LINKS / 5,
    sql`link_teams (link_id, team_id, slug_key, shared_at)`,
    sql`select 'scale-link-' || ${text(sql`5 * ${i} + 1`)},
      'scale-team-' || ${text(sql`(5 * ${i} + 1) % ${teams}`)},
      'go-' || ${text(sql`(5 * ${i} + 1) / 1000`)}, ${at}`,
  )
  await insertSeries(
    50,
    sql`link_teams (link_id, team_id, slug_key, shared_at)`,
    sql`select 'scale-link-' || ${text(sql`1000 * ${i}`)}, 'scale-team-0',
      'go-' || ${text(i)}, ${at}`,
  )
  await insertSeries(
    PEOPLE,
    sql`collections (id, user_id, organization_id, created_by, name, description, created_at,
      updated_at)`,
    sql`select 'scale-collection-' || ${text(i)}, 'scale-' || ${text(i)}, null,
      'scale-' || ${text(i)}, 'Collection ' || ${text(i)}, null, ${at}, ${at}`,
  )
  // Entry i: collection i % 1000, its (i / 1000)-th link: c + 1000·(50 + j).
  await insertSeries(
    PEOPLE * 20,
    sql`collection_links (collection_id, link_id, position, slug_key)`,
    sql`select 'scale-collection-' || ${text(sql`${i} % ${people}`)},
      'scale-link-' || ${text(sql`${i} % ${people} + 1000 * (50 + ${i} / ${people})`)},
      ${i} / ${people}, 'go-' || ${text(sql`50 + ${i} / ${people}`)}`,
  )
  await insertSeries(
    PEOPLE,
    sql`collection_teams (collection_id, team_id)`,
    sql`select 'scale-collection-' || ${text(i)}, 'scale-team-' || ${text(i)}`,
  )
  // Statistics and visibility maps as autovacuum keeps them on a database that grew over time
  // (right after a bulk insert, index-only scans would still visit every row's page).
  if (postgres)
    await sql`vacuum analyze links, users, teams, team_members, link_teams, collections,
      collection_links, collection_teams, organization_members`.execute(t.deps.db)
}

beforeAll(async () => {
  user = await createSignedInUser(t)
  mine = (await createLink(t, user.token, { url: 'https://mine.example/', slug: 'mine' })).id
  await seed(user.user.id)
}, 120_000)

/** No statement reads a sharing table whole, on either engine. */
async function expectNoScan(statements: Statement[], maxBuffers: number): Promise<void> {
  expect(statements.length).toBeGreaterThan(0)
  for (const statement of statements) {
    if (t.database.engine === 'postgres') {
      const plan = await postgresPlanOf(t, statement)
      expect(
        plan.seqScans.filter((table) => SHARING_TABLES.includes(table)),
        `${statement.text}\n${plan.seqScans.join(', ')}`,
      ).toEqual([])
      expect(plan.buffers, `${statement.text}\n${plan.seqScans.join(', ')}`).toBeLessThan(
        maxBuffers,
      )
    } else {
      const plan = await sqlitePlanOf(t, statement)
      const scanned = new RegExp(`^SCAN (${SHARING_TABLES.join('|')})\\b`)
      expect(
        plan.filter((step) => scanned.test(step)),
        `${statement.text}\n${plan.join('\n')}`,
      ).toEqual([])
    }
  }
}

const go = (slug: string) =>
  t.app.inject({ method: 'GET', url: `/go/${slug}`, headers: bearer(user.token) })

const listAll = async (query: string): Promise<string[]> =>
  (await listAllLinks(t, user.token, query)).map((item) => item.id)

describe('sharing with 100,000 links, 1,000 teams and 10,000 memberships', () => {
  it('/go/<slug> finds a team’s link, a shared collection’s and one’s own by index', async () => {
    const statements = await statementsOf(/"links"/, async () => {
      expect((await go('go-7')).headers.location).toBe('https://scale.example/7000')
      expect((await go('go-55')).headers.location).toBe('https://scale.example/55000')
      expect((await go('mine')).headers.location).toBe('https://mine.example/')
    })
    await expectNoScan(statements, 60)
    // 1,000 other people have a go/go-80; none is shared with the person's team.
    expect((await go('go-80')).statusCode).toBe(404)
  })

  it('scope=shared lists exactly the team’s 50 links and its collection’s 20, by index', async () => {
    const first = await statementsOf(/from "links"/, () => listAll('scope=shared'))
    await expectNoScan(first.slice(0, 1), 600)
    const expected = [
      ...Array.from({ length: 50 }, (_, n) => `scale-link-${1000 * n}`),
      ...Array.from({ length: 20 }, (_, j) => `scale-link-${1000 * (50 + j)}`),
    ]
    expect((await listAll('scope=shared')).sort()).toEqual(expected.sort())
  })

  it('scope=shared with a term in every link tests the team’s 70 links, not the term’s matches', async () => {
    const first = await statementsOf(/from "links"/, () => listAll('scope=shared&q=link'))
    await expectNoScan(first.slice(0, 1), 600)
    // On SQLite each shared link is tested for the term: the 100,000 matches are not collected.
    if (t.database.engine === 'sqlite')
      expect(first[0]!.text).not.toMatch(/in \(select links_fts\.rowid from links_fts/)
    const shared = [
      ...Array.from({ length: 50 }, (_, n) => `scale-link-${1000 * n}`),
      ...Array.from({ length: 20 }, (_, j) => `scale-link-${1000 * (50 + j)}`),
    ]
    expect((await listAll('scope=shared&q=link')).sort()).toEqual(shared.sort())
    expect(await listAll('scope=shared&q=49000')).toEqual(['scale-link-49000'])
  })

  it('the plain list holds the person’s own link and the team’s 70, each once, by index', async () => {
    const first = await statementsOf(/from "links"/, () => listAll(''))
    await expectNoScan(first.slice(0, 1), 600)
    const all = await listAll('')
    expect(new Set(all).size).toBe(all.length)
    const shared = [
      ...Array.from({ length: 50 }, (_, n) => `scale-link-${1000 * n}`),
      ...Array.from({ length: 20 }, (_, j) => `scale-link-${1000 * (50 + j)}`),
    ]
    expect(all.filter((id) => id.startsWith('scale-link-')).sort()).toEqual(shared.sort())
    expect(all).toHaveLength(71)
  })

  it('owner=personal lists the person’s own link from their own index, no share read', async () => {
    const statements = await statementsOf(/from "links"/, () => listAll('owner=personal'))
    expect(statements).toHaveLength(1)
    expect(statements[0]!.text).not.toMatch(/link_teams|collection_links/)
    await expectNoScan(statements, 100)
    expect(await listAll('owner=personal')).toEqual([mine])
  })

  it('collection_id lists the shared collection’s links in its order, by index', async () => {
    const statements = await statementsOf(/from "links"/, () =>
      listAll('collection_id=scale-collection-0'),
    )
    await expectNoScan(statements.slice(0, 1), 300)
    expect(await listAll('collection_id=scale-collection-0')).toEqual(
      Array.from({ length: 20 }, (_, j) => `scale-link-${1000 * (50 + j)}`),
    )
    // Another person's collection, not shared with the person's team: nothing.
    expect(await listAll('collection_id=scale-collection-1')).toEqual([])
  })

  it('collection_id with a term in every link tests the collection’s 20 links, in its order', async () => {
    const query = 'collection_id=scale-collection-0&q=link'
    const statements = await statementsOf(/from "links"/, () => listAll(query))
    await expectNoScan(statements.slice(0, 1), 300)
    if (t.database.engine === 'sqlite')
      expect(statements[0]!.text).not.toMatch(/in \(select links_fts\.rowid from links_fts/)
    expect(await listAll(query)).toEqual(
      Array.from({ length: 20 }, (_, j) => `scale-link-${1000 * (50 + j)}`),
    )
    expect(await listAll('collection_id=scale-collection-0&q=55000')).toEqual(['scale-link-55000'])
  })
})
