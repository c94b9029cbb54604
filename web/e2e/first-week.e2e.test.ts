/**
 * Issue 27, a team's first week, in real Chromium against the built server (a process, SQLite, no
 * SMTP configured): an owner invites a colleague on an instance without mail, copies the link from
 * the page, and the colleague — signed in — opens it and joins; inviting the same address again
 * says which invitation (and role) it replaced.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, startConsoleServer, type ConsoleServer } from './harness.ts'
import { checkAccessibility, expectHeading } from './checks.ts'

const OWNER = { name: 'Mehrdad Niknam', email: 'owner@example.com', password: 'first-week-owner-2026' }
const COLLEAGUE = { name: 'Lin Wei', email: 'lin@example.com', password: 'first-week-colleague-2026' }
const LATECOMER = 'later@example.com'

let server: ConsoleServer
let browser: Browser
let ownerToken: string
let organizationId: string

async function api(path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
}

async function newContext(locale: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 800 }, locale })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl })
  return context
}

async function signIn(
  page: Page,
  who: { email: string; password: string },
  labels: { email: string; password: string; submit: string },
): Promise<void> {
  await page.getByLabel(labels.email).fill(who.email)
  await page.getByLabel(labels.password, { exact: true }).fill(who.password)
  await page.getByRole('button', { name: labels.submit, exact: true }).click()
}

const GERMAN = { email: 'E-Mail-Adresse', password: 'Passwort', submit: 'Anmelden' }
const ENGLISH = { email: 'Email address', password: 'Password', submit: 'Sign in' }

beforeAll(async () => {
  server = await startConsoleServer()
  browser = await launchBrowser()
  const setup = await api('/api/auth/setup', { method: 'POST', body: OWNER })
  expect(setup.status).toBe(201)
  const jwt = ((await setup.json()) as { token: string }).token
  ownerToken = ((await (await api('/api/tokens', { method: 'POST', token: jwt, body: { name: 'e2e-arrange' } })).json()) as { token: string }).token
  // The owner reads the console in German (the account's language wins over the browser's once signed in).
  expect((await api('/api/users/me', { method: 'PATCH', token: jwt, body: { language: 'de' } })).status).toBe(200)
  expect((await api('/api/admin/users', { method: 'POST', token: ownerToken, body: COLLEAGUE })).status).toBe(201)
  const org = await api('/api/organizations', { method: 'POST', token: ownerToken, body: { name: 'Erste Woche' } })
  expect(org.status).toBe(201)
  organizationId = ((await org.json()) as { id: string }).id
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('joining without mail', () => {
  it('an owner on an instance without SMTP invites, copies the link; the colleague opens it signed in and joins', async () => {
    const owner = await newContext('de-DE')
    const ownerPage = await owner.newPage()
    await ownerPage.goto('/login')
    await signIn(ownerPage, OWNER, GERMAN)
    await ownerPage.waitForURL(`${server.baseUrl}/links`)
    await ownerPage.goto(`/orgs/${organizationId}`)
    await expectHeading(ownerPage, 'Erste Woche')

    const invitations = ownerPage.getByRole('region', { name: 'Einladungen' })
    await invitations.getByLabel('E-Mail-Adresse').fill(COLLEAGUE.email)
    await invitations.getByLabel('Rolle').selectOption('admin')
    await invitations.getByRole('button', { name: 'Einladung senden' }).click()
    const created = invitations.getByTestId('invitation-created')
    await created.waitFor()
    // No mail: the page says so, and — to an administrator — where outgoing mail is set up.
    expect(await created.getByRole('status').textContent()).toBe(
      `Es wurde keine E-Mail gesendet: Diese Instanz hat keine ausgehende E-Mail. Kopieren Sie den Link und senden Sie ihn selbst an ${COLLEAGUE.email}. Ausgehende E-Mail einrichten.`,
    )
    expect(await created.getByRole('link', { name: 'Ausgehende E-Mail einrichten.' }).getAttribute('href')).toBe('/admin/settings#smtp')
    const shown = await created.getByTestId('invitation-link').inputValue()
    expect(shown).toMatch(new RegExp(`^${server.baseUrl}/invitations/accept\\?token=[A-Za-z0-9_-]{43}$`))
    await created.getByRole('button', { name: 'Link kopieren' }).click()
    const copied = await ownerPage.evaluate(() => navigator.clipboard.readText())
    expect(copied).toBe(shown)
    await checkAccessibility(ownerPage, 'invitation created without mail (de)')
    // The pending list offers the same link to copy.
    await ownerPage
      .getByTestId('invitations')
      .getByRole('button', { name: `Link kopieren – Einladung an ${COLLEAGUE.email}` })
      .click()
    expect(await ownerPage.evaluate(() => navigator.clipboard.readText())).toBe(shown)

    // Consent stays: the colleague is no member until they accept.
    const members = (await (await api(`/api/organizations/${organizationId}/members`, { token: ownerToken })).json()) as {
      items: Array<{ email: string }>
    }
    expect(members.items.map((m) => m.email)).not.toContain(COLLEAGUE.email)

    const colleague = await newContext('en-US')
    const page = await colleague.newPage()
    await page.goto('/login')
    await signIn(page, COLLEAGUE, ENGLISH)
    await page.waitForURL(`${server.baseUrl}/links`)
    await page.goto(copied)
    await expectHeading(page, 'Invitation')
    await page.getByRole('button', { name: 'Accept invitation' }).click()
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('You joined Erste Woche as administrator.')
    const after = (await (await api(`/api/organizations/${organizationId}/members`, { token: ownerToken })).json()) as {
      items: Array<{ email: string; role: string }>
    }
    expect(after.items).toContainEqual(expect.objectContaining({ email: COLLEAGUE.email, role: 'admin' }))
    // Used once: the link now gets a clear page.
    await page.goto(copied)
    await page.getByRole('button', { name: 'Accept invitation' }).click()
    await page.getByText('This invitation is invalid, expired or already used. Ask for a new one.').waitFor()
    await colleague.close()

    // Re-inviting an address with a pending invitation says which one it replaced, and its role.
    await ownerPage.reload()
    await invitations.getByLabel('E-Mail-Adresse').fill(LATECOMER)
    await invitations.getByLabel('Rolle').selectOption('member')
    await invitations.getByRole('button', { name: 'Einladung senden' }).click()
    await created.waitFor()
    expect(await created.getByTestId('invitation-replaced').count()).toBe(0)
    const firstLink = await created.getByTestId('invitation-link').inputValue()
    await invitations.getByLabel('E-Mail-Adresse').fill(LATECOMER)
    await invitations.getByLabel('Rolle').selectOption('admin')
    await invitations.getByRole('button', { name: 'Einladung senden' }).click()
    await expect
      .poll(() => created.getByTestId('invitation-replaced').textContent())
      .toBe(`Diese Einladung ersetzt die frühere Einladung an ${LATECOMER} als Mitglied; deren Link funktioniert nicht mehr.`)
    expect(await created.getByTestId('invitation-link').inputValue()).not.toBe(firstLink)
    await expect
      .poll(() =>
        ownerPage
          .getByTestId('invitations')
          .getByRole('row', { name: new RegExp(LATECOMER) })
          .count(),
      )
      .toBe(1)
    await owner.close()
  })
})
