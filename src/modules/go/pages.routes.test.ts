/**
 * The /go pages: create-on-miss with the closest slugs, and every page in the console's
 * look, the person's theme and language (or the browser's), without script, escaped.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  type SignedIn,
} from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'
import { catalogueKeys, languageFromHeader, pageContextOf } from './page-text.js'
import { editDistance, similarSlugs } from './similar.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const open = (user: SignedIn | null, path: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'GET',
    url: path,
    headers,
    ...(user !== null && { cookies: { token: user.token, csrf_token: user.csrfToken } }),
  })

function expectPage(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  lang: string,
  theme: string,
) {
  expect(response.statusCode).toBe(status)
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(String(response.headers['content-security-policy'])).toMatch(
    /^default-src 'none'; style-src 'sha256-/,
  )
  expect(response.body).not.toMatch(/<script/i)
  expect(response.body).toContain(`<html lang="${lang}" data-theme="${theme}">`)
  // Both themes are in the one stylesheet; dark follows the system unless the person chose.
  expect(response.body).toContain('@media (prefers-color-scheme:dark){:root[data-theme=auto]')
}

describe('create-on-miss', () => {
  it('offers to create the missing slug in the console (dialog prefilled) and lists the closest slugs the person sees', async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    for (const slug of ['meeting-notes', 'meeting', 'roadmap', 'notes-2026'])
      await createLink(t, alice.token, {
        slug,
        title: `${slug} <page>`,
        url: `https://example.com/${slug}`,
      })
    await createLink(t, bob.token, { slug: 'meeting-nots' })
    const response = await open(alice, '/go/meeting-note')
    expectPage(response, 404, 'en', 'auto')
    expect(response.body).toContain('<h1>go/meeting-note does not exist yet</h1>')
    expect(response.body).toContain(
      '<a class="button" href="/links?new=true&amp;slug=meeting-note">Create go/meeting-note</a>',
    )
    expect(response.body).toContain('<h2>Similar go-links</h2>')
    const suggested = [...response.body.matchAll(/href="\/go\/([^"]+)"/g)].map((match) => match[1])
    // Closest first; bob's link is not his to suggest; an unrelated slug is not offered.
    expect(suggested).toEqual(['meeting-notes', 'meeting'])
    // Each with its title (escaped) and destination, to tell similar slugs apart.
    expect(response.body).toContain(
      '<li><a class="mono" href="/go/meeting-notes">go/meeting-notes</a> · meeting-notes ' +
        '&lt;page&gt;<br><small>https://example.com/meeting-notes</small></li>',
    )
    expect(response.body).toContain('<a href="/links">Open the console</a>')
  })

  it("suggests an organization's slug only inside an API token's boundary", async () => {
    const owner = await createSignedInUser(t)
    const org = await createOrganization(t, owner.token)
    const other = await createOrganization(t, owner.token)
    await createLink(t, owner.token, { slug: 'team-wiki', organization_id: org.id })
    await createLink(t, owner.token, { slug: 'team-wikis', organization_id: other.id })
    const { token } = await createApiTokenFor(t, owner.token, 'bounded', {
      permissions: ['links:read'],
      organization_boundary: 'selected',
      organization_ids: [org.id],
    })
    const response = await t.app.inject({
      method: 'GET',
      url: '/go/team-wik',
      headers: bearer(token),
    })
    expect(response.statusCode).toBe(404)
    expect(response.body).toContain('href="/go/team-wiki"')
    expect(response.body).not.toContain('team-wikis')
  })

  it('sends a signed-out visitor to sign in first, to come back to the same page', async () => {
    const response = await open(null, '/go/not-yet')
    expect(response.statusCode).toBe(302)
    expect(response.headers.location).toBe(
      `http://switchboard.test/login?return_to=${encodeURIComponent('/go/not-yet')}`,
    )
  })

  it('answers the miss page for /go/<slug>+ of a slug that does not exist', async () => {
    const alice = await createSignedInUser(t)
    const response = await open(alice, '/go/unknown-thing+')
    expectPage(response, 404, 'en', 'auto')
    expect(response.body).toContain('Create go/unknown-thing')
  })
})

describe('language and theme', () => {
  it("speaks the browser's language to a visitor who is not signed in, German for de", async () => {
    const response = await open(null, '/go/kein.link', {
      'accept-language': 'fr;q=1, de-AT;q=0.8, en;q=0.5',
    })
    expectPage(response, 404, 'de', 'auto')
    expect(response.body).toContain('<h1>Das ist kein Go-Link</h1>')
    expect(response.body).toContain('Zur Konsole')
    expectPage(await open(null, '/go/kein.link', { 'accept-language': 'en-US' }), 404, 'en', 'auto')
  })

  it("uses the person's own language and theme over the browser's, on the miss page, the chooser and the details page", async () => {
    const user = await createSignedInUser(t)
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(user.token),
      payload: { language: 'de', theme: 'dark' },
    })
    expect(patched.statusCode).toBe(200)
    const miss = await open(user, '/go/nothing', { 'accept-language': 'en' })
    expectPage(miss, 404, 'de', 'dark')

    const owner = await createSignedInUser(t)
    const org = await createOrganization(t, owner.token, 'Acme <Ops>')
    await addOrgMember(t, owner.token, org.id, user, 'member')
    await createLink(t, user.token, { slug: 'both', url: 'https://mine.example/' })
    await createLink(t, owner.token, {
      slug: 'both',
      url: 'https://theirs.example/',
      organization_id: org.id,
    })
    const chooser = await open(user, '/go/both')
    expectPage(chooser, 200, 'de', 'dark')
    expect(chooser.body).toContain('Mehrere Links heißen go/both. Welcher soll es sein?')
    expect(chooser.body).toContain('<strong>Persönlich</strong>')
    expect(chooser.body).toContain('<strong>Organisation:</strong> <bdi>Acme &lt;Ops&gt;</bdi>')
    expect(chooser.body).toContain('Öffnen und diese Wahl merken')

    const details = await open(user, '/go/both+')
    expectPage(details, 200, 'de', 'dark')
    expect(details.body).toContain('0 Klicks in den letzten 30 Tagen')
    expect(details.body).toContain('<strong>Gehört:</strong> Ihnen')

    const expired = await t.app.inject({
      method: 'POST',
      url: '/go/both/preference',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'link_id=x&csrf_token=forged',
      cookies: { token: user.token, csrf_token: user.csrfToken },
    })
    expectPage(expired, 403, 'de', 'dark')
    expect(expired.body).toContain('Dieses Formular ist abgelaufen')
  })

  it('picks the language by the highest weight among en and de, English otherwise', () => {
    expect(languageFromHeader('de-CH, en;q=0.9')).toBe('de')
    expect(languageFromHeader('en-GB;q=0.9, de;q=0.3')).toBe('en')
    expect(languageFromHeader('de;q=0, en;q=0.1')).toBe('en')
    expect(languageFromHeader('fr, it')).toBeNull()
    expect(languageFromHeader(undefined)).toBeNull()
    expect(pageContextOf(null, 'fr')).toEqual({ lang: 'en', theme: 'auto' })
    expect(pageContextOf({ language: 'de-AT', theme: 'light' }, 'en')).toEqual({
      lang: 'de',
      theme: 'light',
    })
    expect(pageContextOf({ language: 'fr', theme: 'auto' }, 'de')).toEqual({
      lang: 'de',
      theme: 'auto',
    })
  })

  it('has every English word in German too', () => {
    expect([...catalogueKeys.de].sort()).toEqual([...catalogueKeys.en].sort())
  })
})

describe('similar slugs', () => {
  it('ranks by edit distance, then prefix, ignoring case, at most five', () => {
    expect(editDistance('kitten', 'sitting', 5)).toBe(3)
    expect(editDistance('abc', 'abcdefgh', 2)).toBe(3)
    expect(similarSlugs('Docs', ['docs', 'doc', 'DOCS-old', 'dogs', 'x', 'documentation'])).toEqual(
      ['doc', 'dogs', 'DOCS-old'],
    )
    expect(similarSlugs('ab', ['a', 'b', 'abc', 'abd', 'abe', 'abf', 'abg', 'abh'])).toHaveLength(5)
  })
})
