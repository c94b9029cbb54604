/**
 * Issue 31 on PostgreSQL: a signed-in redirect asks the database one statement — the session's
 * lookup with the slug's links (go/repo.ts) — as /api/users/me asks one. The statements are seen
 * where every query leaves the process, pg's Client.query.
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
// Saved to be put back; never called unbound (see statementsOf).
// eslint-disable-next-line @typescript-eslint/unbound-method
const query = pg.Client.prototype.query
afterEach(() => {
  pg.Client.prototype.query = query
})

/** The texts of the statements that read sessions or links while `action` runs. */
async function statementsOf(action: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config] = args
    const text = typeof config === 'string' ? config : (config as { text?: string }).text
    if (text !== undefined && /"(sessions|links)"/.test(text)) seen.push(text)
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof query
  await action()
  pg.Client.prototype.query = query
  return seen
}

describe('the go redirect on PostgreSQL', () => {
  it('is one statement: the session and the links together, as /api/users/me is one', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, { slug: 'one-statement', url: 'https://one.example/docs' })
    const go = () => t.app.inject({ method: 'GET', url: '/go/one-statement/page?x=1', headers: bearer(user.token) })
    expect((await go()).headers.location).toBe(`${link.url}/page?x=1`)
    const redirect = await statementsOf(async () => expect((await go()).statusCode).toBe(302))
    expect(redirect).toHaveLength(1)
    expect(redirect[0]).toMatch(/from "sessions".* left join \(select .* from "links"/)
    const me = await statementsOf(async () =>
      expect((await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) })).statusCode).toBe(200),
    )
    expect(me).toHaveLength(1)
  })
})
