/** GET /api/links/go-preview: the dialog's preview follows the redirect's own rules. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, login } from '../../../test/helpers/factories.js'
import { addClicks } from './recent-clicks.repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

describe('go-link preview', () => {
  it('appends paths, merges queries, expands templates and names refusals, like the redirect', async () => {
    const user = await createSignedInUser(t)
    const preview = async (query: Record<string, string>) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/links/go-preview?${new URLSearchParams(query).toString()}`,
          headers: bearer(user.token),
        })
      ).json()
    expect(await preview({ url: 'https://github.com', path: 'acme/api', query: 'tab=1' })).toEqual({
      url: 'https://github.com/acme/api?tab=1',
      refusal: null,
    })
    expect(await preview({ url: 'https://jira.example/browse/{1}-{2|1}', path: 'OPS' })).toEqual({
      url: 'https://jira.example/browse/OPS-1',
      refusal: null,
    })
    expect(await preview({ url: 'https://wiki.example/docs', path: '%2e%2e/admin' })).toEqual({
      url: null,
      refusal: 'dot-segment',
    })
    expect(await preview({ url: 'javascript:alert(1)' })).toEqual({ url: null, refusal: 'invalid' })
    expect(await preview({ url: 'https://wiki.example/docs' })).toEqual({
      url: 'https://wiki.example/docs',
      refusal: null,
    })
    const anonymous = await t.app.inject({
      method: 'GET',
      url: '/api/links/go-preview?url=https%3A%2F%2Fx.example',
    })
    expect(anonymous.statusCode).toBe(401)
  })
})

describe('the links list by clicks', () => {
  it('sorts by clicks in the last 30 days, most first, in cursor pages without repeats', async () => {
    const user = await createSignedInUser(t)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: bearer(user.token),
        payload: { url: `https://c${i}.example/` },
      })
      ids.push(created.json().id)
    }
    // Clicks as the redirects' counter writes them: 100 for one link 40 days ago, the others today.
    const clicks = (rows: Array<[string, number]>) =>
      t.deps.db.transaction().execute((tx) =>
        addClicks(
          tx,
          rows.map(([link_id, count]) => ({
            link_id,
            day: t.clock.now().toISOString().slice(0, 10),
            clicks: count,
          })),
        ),
      )
    await clicks([[ids[2]!, 100]])
    t.clock.advance(40 * 86_400)
    // The session of 40 days ago has expired.
    const reader = await login(t, user.email, user.password!)
    await clicks([
      [ids[0]!, 3],
      [ids[1]!, 10],
      [ids[3]!, 3],
    ])
    const seen: Array<[string, number]> = []
    let cursor: string | null = null
    do {
      const query: string = `sort=clicks_30d&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`
      const page = (
        await t.app.inject({
          method: 'GET',
          url: `/api/links?${query}`,
          headers: bearer(reader.token),
        })
      ).json()
      seen.push(
        ...page.items.map(
          (item: { id: string; clicks_30d: number }) =>
            [item.id, item.clicks_30d] as [string, number],
        ),
      )
      cursor = page.next_cursor
    } while (cursor !== null)
    // Ties (3 and 3; 0, 0 and the 40-day-old 100) by newest id first.
    const tie = [ids[0]!, ids[3]!].sort().reverse()
    const zero = [ids[2]!, ids[4]!].sort().reverse()
    expect(seen).toEqual([
      [ids[1], 10],
      [tie[0], 3],
      [tie[1], 3],
      [zero[0], 0],
      [zero[1], 0],
    ])
    // A forged count, or one past what the database holds, is a 400 on both engines.
    for (const count of ['x', '-1', '2147483648', '999999999999999']) {
      const cursor = Buffer.from(JSON.stringify([count, ids[0]])).toString('base64url')
      const forged = await t.app.inject({
        method: 'GET',
        url: `/api/links?sort=clicks_30d&cursor=${cursor}`,
        headers: bearer(reader.token),
      })
      expect(forged.statusCode, count).toBe(400)
    }
  })
})
