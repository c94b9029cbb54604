/**
 * GET /go/{slug} as a table of (links, request) → answer, in the manner of golink's TestServeGo:
 * one set of links, then each case a caller and an address, and the status and `Location` (or the
 * page) it must get — path and template forms, rest segments, query strings, encoded characters,
 * a missing slug, an organization's link, a chooser, a remembered choice, and callers that count
 * as signed out (an expired session, a disabled user, an account the two-factor policy restricts,
 * an API token without links:read).
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
const LOGIN = 'http://switchboard.test/login?return_to='

type Who =
  | 'member'
  | 'member by cookie'
  | 'member by token'
  | 'token without links:read'
  | 'outsider'
  | 'signed out'
  | 'expired session'
  | 'disabled user'
  | 'admin without second factor'

interface Case {
  name: string
  who: Who
  path: string
  status: number
  /** The redirect's target; undefined: no redirect (a page). */
  location?: string
  /** Text the page must contain. */
  page?: string
}

const cases: Case[] = [
  {
    name: 'path form: the rest is appended to the path, the link keeps its query',
    who: 'member',
    path: '/go/docs/guides/setup',
    status: 302,
    location: 'https://docs.example/base/guides/setup?lang=en',
  },
  {
    name: 'no rest: the link itself',
    who: 'member',
    path: '/go/docs',
    status: 302,
    location: 'https://docs.example/base?lang=en',
  },
  {
    name: 'the slug matches ignoring case',
    who: 'member',
    path: '/go/DOCS',
    status: 302,
    location: 'https://docs.example/base?lang=en',
  },
  {
    name: 'rest segments: empty ones dropped, a trailing slash kept',
    who: 'member',
    path: '/go/docs/a//b/',
    status: 302,
    location: 'https://docs.example/base/a/b/?lang=en',
  },
  {
    name: "query string: merged after the link's own",
    who: 'member',
    path: '/go/docs/guides?tab=2&q=x',
    status: 302,
    location: 'https://docs.example/base/guides?lang=en&tab=2&q=x',
  },
  {
    name: 'query string without a rest',
    who: 'member',
    path: '/go/docs?tab=2',
    status: 302,
    location: 'https://docs.example/base?lang=en&tab=2',
  },
  {
    name: 'template form: numbered segments, a default for the missing one',
    who: 'member',
    path: '/go/ticket/ENG',
    status: 302,
    location: 'https://tickets.example/browse/ENG-1',
  },
  {
    name: 'template form: {query} takes the whole rest, the request query is not merged',
    who: 'member',
    path: '/go/find/go links/x?ignored=1',
    status: 302,
    location: 'https://search.example/?q=go%20links%2Fx',
  },
  {
    name: 'encoded characters: kept encoded, an encoded slash stays one segment',
    who: 'member',
    path: '/go/docs/caf%C3%A9%20bar/a%2Fb',
    status: 302,
    location: 'https://docs.example/base/caf%C3%A9%20bar/a%2Fb?lang=en',
  },
  {
    name: 'a dot segment behind an encoded slash: refused with a page, no redirect',
    who: 'member',
    path: '/go/docs/..%2fadmin',
    status: 400,
    page: 'cannot open this address',
  },
  {
    name: 'missing slug: the miss page',
    who: 'member',
    path: '/go/absent/a?b=1',
    status: 404,
    page: 'go/absent does not exist',
  },
  {
    name: 'not a slug: the page saying so',
    who: 'member',
    path: '/go/not%20a%20slug',
    status: 404,
    page: 'This is not a go-link',
  },
  {
    name: "an organization's link, for a member",
    who: 'member',
    path: '/go/team/board',
    status: 302,
    location: 'https://team.example/board',
  },
  {
    name: "an organization's link is not an outsider's",
    who: 'outsider',
    path: '/go/team',
    status: 404,
    page: 'go/team does not exist',
  },
  {
    name: 'chooser: two links share the slug and no choice settles it',
    who: 'member',
    path: '/go/handbook/ch1',
    status: 200,
    page: 'https://handbook-team.example/ch1',
  },
  {
    name: 'a remembered choice opens straight away',
    who: 'member',
    path: '/go/runbook',
    status: 302,
    location: 'https://runbook-team.example/',
  },
  {
    name: 'by the session cookie, as a browser',
    who: 'member by cookie',
    path: '/go/docs/x',
    status: 302,
    location: 'https://docs.example/base/x?lang=en',
  },
  {
    name: 'by an API token with links:read',
    who: 'member by token',
    path: '/go/team?x=1',
    status: 302,
    location: 'https://team.example/?x=1',
  },
  {
    name: 'signed out: the login page, with the whole address to come back to',
    who: 'signed out',
    path: '/go/docs/guides?tab=2',
    status: 302,
    location: `${LOGIN}${encodeURIComponent('/go/docs/guides?tab=2')}`,
  },
  {
    name: 'an expired session counts as signed out',
    who: 'expired session',
    path: '/go/docs',
    status: 302,
    location: `${LOGIN}${encodeURIComponent('/go/docs')}`,
  },
  {
    name: 'a disabled user counts as signed out',
    who: 'disabled user',
    path: '/go/docs',
    status: 302,
    location: `${LOGIN}${encodeURIComponent('/go/docs')}`,
  },
  {
    name: 'an account the two-factor policy restricts counts as signed out',
    who: 'admin without second factor',
    path: '/go/docs',
    status: 302,
    location: `${LOGIN}${encodeURIComponent('/go/docs')}`,
  },
  {
    name: 'an API token without links:read counts as signed out',
    who: 'token without links:read',
    path: '/go/docs',
    status: 302,
    location: `${LOGIN}${encodeURIComponent('/go/docs')}`,
  },
]

const headersOf = new Map<
  Who,
  { headers?: Record<string, string>; cookies?: Record<string, string> }
>()

/** A user with the same links as the member, whose credential is then made to fail. */
async function memberLike(): Promise<TestUser & SignedIn> {
  const user = await createSignedInUser(t)
  await createLink(t, user.token, { slug: 'docs', url: 'https://docs.example/base?lang=en' })
  return user
}

beforeAll(async () => {
  const [member, owner, outsider] = await Promise.all([
    createSignedInUser(t),
    createSignedInUser(t),
    createSignedInUser(t),
  ])
  const org = await createOrganization(t, owner.token, 'Team')
  await addOrgMember(t, owner.token, org.id, member, 'member')
  const links: [string, Record<string, unknown>][] = [
    [member.token, { slug: 'docs', url: 'https://docs.example/base?lang=en' }],
    [member.token, { slug: 'ticket', url: 'https://tickets.example/browse/{1}-{2|1}' }],
    [member.token, { slug: 'find', url: 'https://search.example/?q={query}' }],
    [owner.token, { slug: 'team', url: 'https://team.example/', organization_id: org.id }],
    [member.token, { slug: 'handbook', url: 'https://handbook.example/' }],
    [
      owner.token,
      { slug: 'handbook', url: 'https://handbook-team.example/', organization_id: org.id },
    ],
    [member.token, { slug: 'runbook', url: 'https://runbook.example/' }],
    [
      owner.token,
      { slug: 'runbook', url: 'https://runbook-team.example/', organization_id: org.id },
    ],
  ]
  const created = []
  for (const [token, fields] of links) created.push(await createLink(t, token, fields))
  const chosen = created.find((link) => link.url === 'https://runbook-team.example/')!
  const choice = await t.app.inject({
    method: 'PUT',
    url: '/api/go/preferences/runbook',
    headers: bearer(member.token),
    payload: { link_id: chosen.id },
  })
  expect(choice.statusCode).toBe(200)

  const full = await createApiTokenFor(t, member.token, 'reads links', {
    permissions: ['links:read'],
  })
  const profileOnly = await createApiTokenFor(t, member.token, 'profile only', {
    permissions: ['profile:read'],
  })
  headersOf.set('member', { headers: bearer(member.token) })
  headersOf.set('member by cookie', { cookies: { token: member.token } })
  headersOf.set('member by token', { headers: bearer(full.token) })
  headersOf.set('token without links:read', { headers: bearer(profileOnly.token) })
  headersOf.set('outsider', { headers: bearer(outsider.token) })
  headersOf.set('signed out', {})

  const [expired, disabled] = await Promise.all([memberLike(), memberLike()])
  await t.deps.db
    .updateTable('sessions')
    .set({ expires_at: new Date(t.clock.now().getTime() - 1000).toISOString() })
    .where('user_id', '=', expired.user.id)
    .execute()
  await t.deps.db
    .updateTable('users')
    .set({ disabled: true })
    .where('id', '=', disabled.user.id)
    .execute()
  headersOf.set('expired session', { headers: bearer(expired.token) })
  headersOf.set('disabled user', { headers: bearer(disabled.token) })

  // Administrators must have a second factor; this one has none.
  const admin = await createSignedInUser(t, { isAdmin: true })
  await createLink(t, admin.token, { slug: 'docs', url: 'https://docs.example/base?lang=en' })
  await t.deps.db
    .insertInto('settings')
    .values({
      key: 'two_factor_policy',
      value: JSON.stringify({ required: 'admins' }),
      updated_at: t.clock.now().toISOString(),
      updated_by: null,
    })
    .execute()
  headersOf.set('admin without second factor', { headers: bearer(admin.token) })
})

describe('GET /go/{slug}', () => {
  it.each(cases)('$name', async ({ who, path, status, location, page }) => {
    const response = await t.app.inject({ method: 'GET', url: path, ...headersOf.get(who) })
    expect(response.statusCode).toBe(status)
    expect(response.headers.location).toBe(location)
    if (page !== undefined) {
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(response.body).toContain(page)
    }
  })

  it('has a case for each kind of caller', () => {
    expect(new Set(cases.map((row) => row.who))).toEqual(new Set(headersOf.keys()))
  })
})
