/**
 * GET /api/users/me/security-events — the caller's own sign-ins (successful and
 * failed, with IP and browser) and factor, password and token changes, newest first, keyset-paged;
 * another account's events are never visible, and nothing in an event tells about other accounts.
 */
import { describe, expect, it } from 'vitest'
import { recordAudit } from '../audit/service.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
} from '../../../test/helpers/factories.js'

const t = useTestApp()

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

// Events from the wire; the tests assert their fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Event = Record<string, any>

async function eventsOf(
  token: string,
  query = '',
): Promise<{ items: Event[]; next_cursor: string | null }> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/users/me/security-events${query}`,
    headers: bearer(token),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

async function allEventsOf(token: string): Promise<Event[]> {
  const all: Event[] = []
  let cursor: string | null = null
  do {
    const page = await eventsOf(token, `?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)
    all.push(...page.items)
    cursor = page.next_cursor
  } while (cursor !== null)
  return all
}

describe('GET /api/users/me/security-events', () => {
  it("lists the person's sign-ins (success and failure, IP and browser) and changes, newest first", async () => {
    const person = await createUser(t)
    const failed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: person.email, password: 'not the password' },
      headers: { 'user-agent': CHROME_WINDOWS },
      remoteAddress: '198.51.100.7',
    })
    expect(failed.statusCode).toBe(401)
    t.clock.advance(1)
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: person.email, password: DEFAULT_PASSWORD },
      headers: { 'user-agent': CHROME_WINDOWS },
      remoteAddress: '198.51.100.8',
    })
    const token: string = signedIn.json().token
    t.clock.advance(1)
    await createApiTokenFor(t, token, 'backup-script')
    t.clock.advance(1)
    await enableMfa(t, { token, password: DEFAULT_PASSWORD })

    const { items } = await eventsOf(token)
    expect(items.map((e) => e.action)).toEqual([
      'mfa.enable',
      'token.create',
      'auth.login',
      'auth.login_failed',
    ])
    expect(items[2]).toMatchObject({
      ip: '198.51.100.8',
      user_agent: CHROME_WINDOWS,
      method: 'password',
      by_administrator: false,
    })
    expect(items[3]).toMatchObject({
      ip: '198.51.100.7',
      user_agent: CHROME_WINDOWS,
      method: 'password',
      by_administrator: false,
    })
    expect(items[1]).toMatchObject({ name: 'backup-script' })
    // A failed sign-in's metadata (the email typed) is not passed through.
    expect(Object.keys(items[3]!).sort()).toEqual([
      'action',
      'at',
      'by_administrator',
      'id',
      'ip',
      'method',
      'name',
      'user_agent',
    ])
    const times = items.map((e) => e.at as string)
    expect([...times].sort().reverse()).toEqual(times)
  })

  it('pages with the keyset cursor, each event once', async () => {
    const person = await createSignedInUser(t)
    for (let i = 0; i < 4; i++) {
      await createApiTokenFor(t, person.token, `token ${i}`)
    }
    const paged = await allEventsOf(person.token)
    const whole = (await eventsOf(person.token)).items
    expect(paged.map((e) => e.id)).toEqual(whole.map((e) => e.id))
    expect(new Set(paged.map((e) => e.id)).size).toBe(paged.length)
    expect(paged.length).toBe(5)
  })

  it("never shows another account's events, and a failed sign-in appears only for the account whose email was typed", async () => {
    const alice = await createSignedInUser(t)
    const mallory = await createSignedInUser(t)
    t.clock.advance(1)
    await createApiTokenFor(t, alice.token, 'alice only')
    t.clock.advance(1)
    // Mallory guesses Alice's password: the failure is Alice's to see, not Mallory's.
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: alice.email, password: 'guess 1234 guess' },
    })
    // An email with no account shows up nowhere.
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'nobody-here@example.com', password: 'guess 1234 guess' },
    })

    const aliceEvents = await allEventsOf(alice.token)
    const malloryEvents = await allEventsOf(mallory.token)
    expect(aliceEvents.map((e) => e.action)).toEqual([
      'auth.login_failed',
      'token.create',
      'auth.login',
    ])
    expect(malloryEvents.map((e) => e.action)).toEqual(['auth.login'])
    const aliceIds = new Set(aliceEvents.map((e) => e.id))
    expect(malloryEvents.some((e) => aliceIds.has(e.id))).toBe(false)

    // A cursor made from Alice's events gives Mallory nothing of Alice's.
    const alicePage = await eventsOf(alice.token, '?limit=1')
    const withAliceCursor = await eventsOf(mallory.token, `?cursor=${alicePage.next_cursor}`)
    expect(withAliceCursor.items.some((e) => aliceIds.has(e.id))).toBe(false)
  })

  it('marks changes an administrator made, and includes passkey events, but not events outside the allow-list', async () => {
    const person = await createSignedInUser(t)
    const admin = await createSignedInUser(t, { isAdmin: true })
    const ctx = { ip: '192.0.2.1', userAgent: null }
    t.clock.advance(1)
    await recordAudit(t.deps.db, t.deps.clock, ctx, {
      action: 'passkey.register',
      actor: person.user,
      target: { type: 'passkey', id: 'pk' },
      metadata: { name: 'Laptop' },
    })
    t.clock.advance(1)
    await recordAudit(t.deps.db, t.deps.clock, ctx, {
      action: 'auth.passkey_failed',
      actor: null,
      target: { type: 'user', id: person.user.id },
    })
    t.clock.advance(1)
    await recordAudit(t.deps.db, t.deps.clock, ctx, {
      action: 'mfa.reset',
      actor: admin.user,
      target: { type: 'user', id: person.user.id },
      metadata: { via: 'admin' },
    })
    t.clock.advance(1)
    // Organization and link changes are not security events of the account.
    await t.app.inject({
      method: 'POST',
      url: '/api/organizations',
      headers: bearer(person.token),
      payload: { name: 'Not a security event' },
    })

    const items = (await eventsOf(person.token)).items
    expect(items.map((e) => e.action)).toEqual([
      'mfa.reset',
      'auth.passkey_failed',
      'passkey.register',
      'auth.login',
    ])
    expect(items[0]).toMatchObject({ by_administrator: true })
    expect(items[2]).toMatchObject({ name: 'Laptop', by_administrator: false })
  })

  it('a cursor this endpoint did not issue is 400', async () => {
    const person = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/security-events?cursor=bm9wZQ',
      headers: bearer(person.token),
    })
    expect(response.statusCode).toBe(400)
  })

  it('needs authentication', async () => {
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me/security-events' })).statusCode,
    ).toBe(401)
    await login(t, (await createUser(t)).email, DEFAULT_PASSWORD)
  })
})
