/** GET /api/links/go-preview (issue 31): the dialog's preview follows the redirect's own rules. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

describe('go-link preview', () => {
  it('appends paths, merges queries, expands templates and names refusals, like the redirect', async () => {
    const user = await createSignedInUser(t)
    const preview = async (query: Record<string, string>) =>
      (await t.app.inject({ method: 'GET', url: `/api/links/go-preview?${new URLSearchParams(query)}`, headers: bearer(user.token) })).json()
    expect(await preview({ url: 'https://github.com', path: 'acme/api', query: 'tab=1' })).toEqual({
      url: 'https://github.com/acme/api?tab=1',
      refusal: null,
    })
    expect(await preview({ url: 'https://jira.example/browse/{1}-{2|1}', path: 'OPS' })).toEqual({
      url: 'https://jira.example/browse/OPS-1',
      refusal: null,
    })
    expect(await preview({ url: 'https://wiki.example/docs', path: '%2e%2e/admin' })).toEqual({ url: null, refusal: 'dot-segment' })
    expect(await preview({ url: 'javascript:alert(1)' })).toEqual({ url: null, refusal: 'invalid' })
    expect(await preview({ url: 'https://wiki.example/docs' })).toEqual({ url: 'https://wiki.example/docs', refusal: null })
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/links/go-preview?url=https%3A%2F%2Fx.example' })
    expect(anonymous.statusCode).toBe(401)
  })
})
