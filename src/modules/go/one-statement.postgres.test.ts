/**
 * Issue 31 on PostgreSQL: a signed-in redirect asks the database one statement — the session's
 * lookup with the slug's links (go/repo.ts) — as /api/users/me asks one. The statements are seen
 * where every query leaves the process (test/helpers/query-plans.ts).
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { statementsOf } from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
/** The texts of the statements that read sessions or links while `action` runs. */
const readsOf = async (action: () => Promise<unknown>) => (await statementsOf(/"(sessions|links)"/, action)).map((statement) => statement.text)

describe('the go redirect on PostgreSQL', () => {
  it('is one statement: the session and the links together, as /api/users/me is one', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, { slug: 'one-statement', url: 'https://one.example/docs' })
    const go = () => t.app.inject({ method: 'GET', url: '/go/one-statement/page?x=1', headers: bearer(user.token) })
    expect((await go()).headers.location).toBe(`${link.url}/page?x=1`)
    const redirect = await readsOf(async () => expect((await go()).statusCode).toBe(302))
    expect(redirect).toHaveLength(1)
    expect(redirect[0]).toMatch(/from "sessions".* left join \(select .* from "links"/)
    const me = await readsOf(async () =>
      expect((await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) })).statusCode).toBe(200),
    )
    expect(me).toHaveLength(1)
  })
})
