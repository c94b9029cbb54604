/**
 * On PostgreSQL a signed-in redirect asks the database one statement — the session's
 * lookup with the slug's links (go/repo.ts) — as /api/users/me asks one, and that statement, as the
 * hot-read connections plan it (db/postgres.ts HOT_READ_SETTINGS), probes indexes only, also on a
 * new instance's small tables. The statements are seen where every query leaves the process
 * (test/helpers/query-plans.ts).
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { HOT_READ_SETTINGS } from '../../db/postgres.js'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { addTeamMember, createTeam } from '../../../test/helpers/teams.js'
import { statementsOf, type Statement } from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
/** The statements that read sessions or links while `action` runs. */
const caught = (action: () => Promise<unknown>) => statementsOf(/"(sessions|links)"/, action)
const readsOf = async (action: () => Promise<unknown>) =>
  (await caught(action)).map((statement) => statement.text)

/**
 * The kinds of the plan's nodes, as a connection with the hot reads' settings plans the prepared
 * statement (its generic plan).
 */
async function hotPlanNodes(statement: Statement): Promise<string[]> {
  const client = new pg.Client({ connectionString: t.database.url })
  await client.connect()
  try {
    await client.query(HOT_READ_SETTINGS)
    await client.query(`prepare hot_read as ${statement.text}`)
    // The hot reads bind text, numbers and booleans only.
    const values = statement.values.map((value) =>
      value === null ? 'null' : client.escapeLiteral(String(value as string | number | boolean)),
    )
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: unknown }] }>(
      `explain (format json, costs off) execute hot_read(${values.join(', ')})`,
    )
    return [
      ...JSON.stringify(rows[0]!['QUERY PLAN'][0].Plan).matchAll(/"Node Type":"([^"]+)"/g),
    ].map((match) => match[1]!)
  } finally {
    await client.end()
  }
}

describe('the go redirect on PostgreSQL', () => {
  it('is one statement: the session and the links together, as /api/users/me is one', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, {
      slug: 'one-statement',
      url: 'https://one.example/docs',
    })
    const go = () =>
      t.app.inject({
        method: 'GET',
        url: '/go/one-statement/page?x=1',
        headers: bearer(user.token),
      })
    expect((await go()).headers.location).toBe(`${link.url}/page?x=1`)
    const redirect = await readsOf(async () => expect((await go()).statusCode).toBe(302))
    expect(redirect).toHaveLength(1)
    expect(redirect[0]).toMatch(/from "sessions".* left join \(select .* from "links"/)
    const me = await readsOf(async () =>
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) }))
          .statusCode,
      ).toBe(200),
    )
    expect(me).toHaveLength(1)
  })

  it('reads team shares only for a person in a team, and then in the same one statement', async () => {
    const [admin, user] = await Promise.all([
      createSignedInUser(t, { isAdmin: true }),
      createSignedInUser(t),
    ])
    await createLink(t, user.token, { slug: 'in-team', url: 'https://in-team.example/' })
    const go = async () =>
      expect(
        (await t.app.inject({ method: 'GET', url: '/go/in-team', headers: bearer(user.token) }))
          .headers.location,
      ).toBe('https://in-team.example/')
    const alone = await readsOf(go)
    expect(alone).toHaveLength(1)
    expect(alone[0]).not.toMatch(/"link_teams"|"collection_links"/)
    const team = await createTeam(t, admin.token)
    await addTeamMember(t, admin.token, team.id, user.user.id)
    // The first redirect in a team finds the person in one, and asks again with the shares.
    expect(await readsOf(go)).toHaveLength(2)
    const inTeam = await readsOf(go)
    expect(inTeam).toHaveLength(1)
    expect(inTeam[0]).toMatch(
      /from "sessions".* inner join lateral .*"link_teams".*"collection_links"/,
    )
  })

  it('probes indexes only on a small database: no sequential or bitmap scan (each asks the file system for the table size on every run)', async () => {
    const user = await createSignedInUser(t)
    await createLink(t, user.token, { slug: 'small-table', url: 'https://small.example/' })
    const [redirect] = await caught(async () =>
      expect(
        (await t.app.inject({ method: 'GET', url: '/go/small-table', headers: bearer(user.token) }))
          .statusCode,
      ).toBe(302),
    )
    const nodes = await hotPlanNodes(redirect!)
    // The links are found both ways: the person's own, and through the memberships.
    expect(
      nodes.filter((node) => node === 'Index Scan' || node === 'Index Only Scan').length,
    ).toBeGreaterThanOrEqual(6)
    expect(nodes.filter((node) => node === 'Seq Scan' || node === 'Bitmap Heap Scan')).toEqual([])
  })
})
