/**
 * GET /go/{slug} and the chooser's form (docs/API.md#links-and-go-links): every branch, as a
 * browser sees it.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const LOGIN = 'http://switchboard.test/login?return_to=%2Fgo%2F'

/** A browser: the session cookies, nothing else. */
const open = (user: SignedIn | null, path: string) =>
  t.app.inject({
    method: 'GET',
    url: path,
    ...(user !== null && { cookies: { token: user.token, csrf_token: user.csrfToken } }),
  })

const remember = (
  user: SignedIn | null,
  slug: string,
  form: Record<string, string>,
  contentType = 'application/x-www-form-urlencoded',
) =>
  t.app.inject({
    method: 'POST',
    url: `/go/${slug}/preference`,
    headers: { 'content-type': contentType },
    payload: contentType.includes('json')
      ? JSON.stringify(form)
      : new URLSearchParams(form).toString(),
    ...(user !== null && { cookies: { token: user.token, csrf_token: user.csrfToken } }),
  })

const preferences = async (user: SignedIn) =>
  (
    await t.app.inject({ method: 'GET', url: '/api/go/preferences', headers: bearer(user.token) })
  ).json().items

const storedPreferences = (userId: string) =>
  t.deps.db
    .selectFrom('go_preferences')
    .select(['slug_key', 'link_id'])
    .where('user_id', '=', userId)
    .execute()

function expectHtmlPage(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
): void {
  expect(response.statusCode).toBe(status)
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(response.headers['cache-control']).toBe('no-store')
  const csp = String(response.headers['content-security-policy'])
  expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'/)
  expect(csp).not.toMatch(/script-src|unsafe-inline/)
  expect(response.body).not.toMatch(/<script/i)
}

/**
 * A user who sees three links called go/<slug>: their own, and two organizations' — with hostile
 * names.
 */
async function userWithSeveral(slug: string) {
  const user = await createSignedInUser(t)
  const orgOwner = await createSignedInUser(t)
  const orgA = await createOrganization(t, orgOwner.token, 'Acme <b>Ops</b>')
  const orgB = await createOrganization(t, orgOwner.token, 'Beta "Team"')
  await addOrgMember(t, orgOwner.token, orgA.id, user, 'member')
  await addOrgMember(t, orgOwner.token, orgB.id, user, 'member')
  const personal = await createLink(t, user.token, {
    url: 'https://mine.example/docs',
    title: '<script>alert("x")</script>',
    slug,
  })
  const a = await createLink(t, orgOwner.token, {
    url: 'https://a.example/x?y=1&z=2',
    title: null,
    slug,
    organization_id: orgA.id,
  })
  const b = await createLink(t, orgOwner.token, {
    url: 'https://b.example/',
    title: "B's page",
    slug: slug.toUpperCase(),
    organization_id: orgB.id,
  })
  return { user, orgOwner, orgA, orgB, personal, a, b }
}

describe('GET /go/{slug}', () => {
  let alice: TestUser & SignedIn
  beforeAll(async () => {
    alice = await createSignedInUser(t)
  })

  it('sends a visitor who is not signed in (or whose cookie is invalid) to the login page with a return path', async () => {
    await createLink(t, alice.token, { slug: 'login-first', url: 'https://example.com/secret' })
    for (const response of [
      await open(null, '/go/login-first'),
      await t.app.inject({
        method: 'GET',
        url: '/go/login-first',
        cookies: { token: 'not-a-jwt' },
      }),
      await t.app.inject({
        method: 'GET',
        url: '/go/no-such-slug',
        cookies: { token: `${alice.token}x` },
      }),
    ]) {
      expect(response.statusCode).toBe(302)
      expect(response.headers.location).toMatch(
        new RegExp(`^${LOGIN.replace(/[.?]/g, '\\$&')}(login-first|no-such-slug)$`),
      )
      expect(response.body).not.toContain('example.com/secret')
    }
  })

  it('redirects to the single visible forwarding link, matching the slug ignoring case', async () => {
    const link = await createLink(t, alice.token, {
      slug: 'Single',
      url: 'https://single.example/path?q=1',
    })
    await createLink(t, alice.token, { slug: 'single-not', url: 'https://other.example/' })
    for (const path of ['/go/Single', '/go/single', '/go/SINGLE']) {
      const response = await open(alice, path)
      expect(response.statusCode).toBe(302)
      expect(response.headers.location).toBe(link.url)
    }
    // Bearer credentials work as well (a script following a go-link).
    expect(
      (await t.app.inject({ method: 'GET', url: '/go/single', headers: bearer(alice.token) }))
        .headers.location,
    ).toBe(link.url)
  })

  it('reads the links beside the sign-in, but hands them over only to a live session of their owner', async () => {
    // The access JWT names its user, so the redirect's links are read in the session's own lookup
    // (go/redirect.ts): a signed-out session must still get the login page.
    const carol = await createSignedInUser(t)
    const link = await createLink(t, carol.token, {
      slug: 'carols-secret',
      url: 'https://carol.example/secret',
    })
    expect((await open(carol, '/go/carols-secret')).headers.location).toBe(link.url)
    const apiToken = (await createApiTokenFor(t, carol.token)).token
    expect(
      (await t.app.inject({ method: 'GET', url: '/go/carols-secret', headers: bearer(apiToken) }))
        .headers.location,
    ).toBe(link.url)
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/logout',
          headers: bearer(carol.token),
        })
      ).statusCode,
    ).toBe(204)
    for (const response of [
      await open(carol, '/go/carols-secret'),
      await t.app.inject({ method: 'GET', url: '/go/carols-secret', headers: bearer(carol.token) }),
    ]) {
      expect(response.statusCode).toBe(302)
      expect(response.headers.location).toBe(`${LOGIN}carols-secret`)
    }
    // Another user's live session never sees them.
    expect((await open(alice, '/go/carols-secret')).statusCode).toBe(404)
  })

  it('treats a session whose stored expiry has passed, or whose user is disabled, as signed out (the one statement that reads both)', async () => {
    for (const end of ['expired', 'disabled'] as const) {
      const dave = await createSignedInUser(t)
      const link = await createLink(t, dave.token, {
        slug: `daves-${end}`,
        url: 'https://dave.example/',
      })
      expect((await open(dave, `/go/daves-${end}`)).headers.location).toBe(link.url)
      if (end === 'expired') {
        const past = new Date(t.clock.now().getTime() - 1000).toISOString()
        await t.deps.db
          .updateTable('sessions')
          .set({ expires_at: past })
          .where('user_id', '=', dave.user.id)
          .execute()
      } else
        await t.deps.db
          .updateTable('users')
          .set({ disabled: true })
          .where('id', '=', dave.user.id)
          .execute()
      const response = await t.app.inject({
        method: 'GET',
        url: `/go/daves-${end}`,
        headers: bearer(dave.token),
      })
      expect(response.statusCode, end).toBe(302)
      expect(response.headers.location, end).toBe(`${LOGIN}daves-${end}`)
    }
  })

  it('ignores links that do not forward', async () => {
    const user = await createSignedInUser(t)
    const forwarding = await createLink(t, user.token, {
      slug: 'mixed',
      url: 'https://forwarding.example/',
    })
    const org = await createOrganization(t, user.token)
    await createLink(t, user.token, {
      slug: 'mixed',
      url: 'https://parked.example/',
      organization_id: org.id,
      forwarding_enabled: false,
    })
    expect((await open(user, '/go/mixed')).headers.location).toBe(forwarding.url)
  })

  it('answers a 404 page when no visible link forwards, and for anything that is not a slug, escaped', async () => {
    const none = await open(alice, '/go/nothing-here')
    expectHtmlPage(none, 404)
    expect(none.body).toContain('go/nothing-here does not exist')
    const hostile = await open(alice, `/go/${encodeURIComponent('<img src=x onerror=alert(1)>')}`)
    expectHtmlPage(hostile, 404)
    expect(hostile.body).toContain('This is not a go-link')
    expect(hostile.body).not.toContain('<img')
    // Someone else's link is not a candidate either.
    const bob = await createSignedInUser(t)
    await createLink(t, bob.token, { slug: 'bobs-only' })
    expectHtmlPage(await open(alice, '/go/bobs-only'), 404)
  })

  it('offers a chooser when several visible links share the slug, with every name escaped', async () => {
    const { user, personal, a, b } = await userWithSeveral('handbook')
    const response = await open(user, '/go/handbook')
    expectHtmlPage(response, 200)
    const html = response.body
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    expect(html).toContain('Acme &lt;b&gt;Ops&lt;/b&gt;')
    expect(html).toContain('Beta &quot;Team&quot;')
    expect(html).toContain('B&#39;s page')
    expect(html).toContain('href="https://a.example/x?y=1&amp;z=2"')
    expect(html).not.toContain('<b>')
    // Personal first, then by organization name; each with a form that carries the session's CSRF
    // token.
    const [first, second, third] = [personal.url, 'https://a.example/x', b.url].map((url) =>
      html.indexOf(url),
    )
    expect(first).toBeGreaterThan(0)
    expect(first).toBeLessThan(second!)
    expect(second).toBeLessThan(third!)
    expect(html.match(/<form method="post" action="handbook\/preference">/g)).toHaveLength(3)
    expect(html).toContain(`name="csrf_token" value="${user.csrfToken}"`)
    for (const link of [personal, a, b]) expect(html).toContain(`name="link_id" value="${link.id}"`)
    // The redirect after the form must be allowed by form-action: the candidates' origins, nothing
    // else.
    expect(response.headers['content-security-policy']).toContain(
      "form-action 'self' https://mine.example https://a.example https://b.example;",
    )
  })

  it('labels_sources_so_no_organization_name_can_pass_for_personal', async () => {
    const user = await createSignedInUser(t)
    const orgOwner = await createSignedInUser(t)
    const impostor = await createOrganization(t, orgOwner.token, 'Personal')
    await addOrgMember(t, orgOwner.token, impostor.id, user, 'member')
    await createLink(t, user.token, { url: 'https://mine.example/own', slug: 'labels' })
    await createLink(t, orgOwner.token, {
      url: 'https://impostor.example/',
      slug: 'labels',
      organization_id: impostor.id,
    })
    const response = await open(user, '/go/labels')
    expectHtmlPage(response, 200)
    const labels = [...response.body.matchAll(/<p class="source">(.*?)<\/p>/g)].map((m) => m[1])
    expect(labels).toEqual([
      '<strong>Personal</strong>',
      '<strong>Organization:</strong> <bdi>Personal</bdi>',
    ])
    // Exactly one candidate is labelled as the caller's own.
    expect(labels.filter((label) => label === '<strong>Personal</strong>')).toHaveLength(1)
    // The JSON side says the kind too.
    const chosen = await t.app.inject({
      method: 'GET',
      url: '/api/links?limit=100',
      headers: bearer(user.token),
    })
    const impostorLink = chosen
      .json()
      .items.find((l: { url: string }) => l.url === 'https://impostor.example/')
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/go/preferences/labels',
      headers: bearer(user.token),
      payload: { link_id: impostorLink.id },
    })
    expect(put.json()).toMatchObject({ source: 'Personal', source_kind: 'organization' })
  })

  it('remembers a choice posted with the session CSRF token: 303 to the link, then straight there next time', async () => {
    const { user, a } = await userWithSeveral('remembered')
    const response = await remember(user, 'remembered', {
      csrf_token: user.csrfToken,
      link_id: a.id,
    })
    expect(response.statusCode).toBe(303)
    expect(response.headers.location).toBe(a.url)
    const again = await open(user, '/go/Remembered')
    expect(again.statusCode).toBe(302)
    expect(again.headers.location).toBe(a.url)
    expect(await preferences(user)).toEqual([
      {
        slug: 'remembered',
        link_id: a.id,
        title: null,
        url: a.url,
        source: 'Acme <b>Ops</b>',
        source_kind: 'organization',
        updated_at: expect.any(String),
      },
    ])
  })

  it('refuses the form without the right CSRF token (403 page) and remembers nothing', async () => {
    const { user, a } = await userWithSeveral('forged')
    const attacker = await createSignedInUser(t)
    const forms: Array<Record<string, string>> = [
      { link_id: a.id },
      { link_id: a.id, csrf_token: '' },
      { link_id: a.id, csrf_token: `${user.csrfToken}x` },
      { link_id: a.id, csrf_token: attacker.csrfToken },
    ]
    for (const form of forms) {
      const response = await remember(user, 'forged', form)
      expectHtmlPage(response, 403)
      expect(response.body).toContain('This form has expired')
    }
    // An API token has no session to bind a form token to.
    const apiToken = (await createApiTokenFor(t, user.token)).token
    const viaToken = await t.app.inject({
      method: 'POST',
      url: '/go/forged/preference',
      headers: { ...bearer(apiToken), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ link_id: a.id, csrf_token: user.csrfToken }).toString(),
    })
    expect(viaToken.statusCode).toBe(403)
    expect(await storedPreferences(user.user.id)).toEqual([])
  })

  it('answers the form with a 400 page for a link that is not a candidate, and sends a visitor to the login page', async () => {
    const { user, personal } = await userWithSeveral('choices')
    const other = await createLink(t, user.token, { slug: 'elsewhere' })
    const stranger = await createLink(t, alice.token, { slug: 'choices' })
    for (const linkId of [other.id, stranger.id, 'no-such-link', 'nul\u0000byte', '']) {
      const response = await remember(user, 'choices', {
        csrf_token: user.csrfToken,
        link_id: linkId,
      })
      expectHtmlPage(response, 400)
      expect(response.body).toContain('href="../choices"')
    }
    expect(await storedPreferences(user.user.id)).toEqual([])
    const visitor = await remember(null, 'choices', { link_id: personal.id })
    expect(visitor.statusCode).toBe(303)
    expect(visitor.headers.location).toBe(`${LOGIN}choices`)
  })

  it('accepts only a form body on the form route', async () => {
    const { user, a } = await userWithSeveral('formonly')
    const response = await remember(
      user,
      'formonly',
      { csrf_token: user.csrfToken, link_id: a.id },
      'application/json',
    )
    expect(response.statusCode).toBe(415)
    expect(response.json().reason).toBe('UNSUPPORTED_MEDIA_TYPE')
  })

  it('ignores and removes a preference whose link stopped forwarding or lost the slug', async () => {
    const { user, orgOwner, personal, a, b } = await userWithSeveral('stale')
    expect(
      (await remember(user, 'stale', { csrf_token: user.csrfToken, link_id: personal.id }))
        .statusCode,
    ).toBe(303)
    await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${personal.id}`,
      headers: bearer(user.token),
      payload: { forwarding_enabled: false },
    })
    expectHtmlPage(await open(user, '/go/stale'), 200) // a and b remain: the chooser
    expect(await storedPreferences(user.user.id)).toEqual([])

    expect(
      (await remember(user, 'stale', { csrf_token: user.csrfToken, link_id: a.id })).statusCode,
    ).toBe(303)
    await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${a.id}`,
      headers: bearer(orgOwner.token),
      payload: { slug: 'renamed' },
    })
    const single = await open(user, '/go/stale')
    expect(single.statusCode).toBe(302)
    expect(single.headers.location).toBe(b.url)
    expect(await storedPreferences(user.user.id)).toEqual([])
  })

  it('forgets the links — and the preference — of an organization the user left', async () => {
    const { user, orgA, a, b, personal } = await userWithSeveral('left')
    expect(
      (await remember(user, 'left', { csrf_token: user.csrfToken, link_id: a.id })).statusCode,
    ).toBe(303)
    const leave = await t.app.inject({
      method: 'DELETE',
      url: `/api/organizations/${orgA.id}/members/${user.user.id}`,
      headers: bearer(user.token),
    })
    expect(leave.statusCode).toBe(204)
    const response = await open(user, '/go/left')
    expectHtmlPage(response, 200)
    expect(response.body).not.toContain(a.url)
    expect(response.body).toContain(b.url)
    expect(response.body).toContain(personal.url)
    expect(await storedPreferences(user.user.id)).toEqual([])
  })

  it('offers the chooser without forms to an API token, which has no session to bind them to', async () => {
    const { user } = await userWithSeveral('tokened')
    const apiToken = (await createApiTokenFor(t, user.token)).token
    const response = await t.app.inject({
      method: 'GET',
      url: '/go/tokened',
      headers: bearer(apiToken),
    })
    expectHtmlPage(response, 200)
    expect(response.body).not.toContain('<form')
  })
})
