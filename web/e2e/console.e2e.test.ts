/**
 * The console in real Chromium against the built server (a process, SQLite), as a person uses it.
 * One browser, several contexts (one per device); the steps build on each other in order, as a
 * new instance's first hour would: setup, sign-in, tokens, sessions, two-factor, OIDC, languages.
 * Every page visited is checked by axe-core in the light and the dark theme.
 */
import fs from 'node:fs'
import type { BrowserContext, Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  OIDC_CLIENT_ID,
  startOidcProvider,
  type OidcProviderStandIn,
} from '../../test/helpers/oidc-provider.ts'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import { OIDC_CLIENT_SECRET, SMTP_PASSWORD, SMTP_USERNAME } from '../../test/helpers/secret-scan.ts'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../test/helpers/smtp-server.ts'
import {
  ALL_TOKEN_PERMISSIONS,
  apiRequest,
  openBrowser,
  type FileBrowser,
  recordActivity,
  startConsoleServer,
  type ApiInit,
  type ConsoleServer,
} from './harness.ts'
import { checkAccessibility as checkAxe, confirmIfAsked, expectHeading } from './checks.ts'

const ADMIN = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const PROVIDER_KEY = 'stand-in'
const LIN = { name: 'Lin Wei', email: 'lin@example.com', password: 'lattice-basis-2024' }

let server: ConsoleServer
let browser: FileBrowser
let oidc: OidcProviderStandIn
let smtp: SmtpStandIn
/** An API token of the administrator, for arranging things through the API (survives 2FA). */
let adminApiToken: string
const cspViolations: string[] = []
const axeReport = new Map<string, string[]>()
const checkAccessibility = (page: Page, name: string) =>
  checkAxe(page, name, (pass, violations) =>
    axeReport.set(
      pass,
      violations.map((v) => `${v.impact} ${v.id}`),
    ),
  )

async function newContext(options: { locale?: string } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: options.locale ?? 'en-US',
  })
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      cspViolations.push(`${message.location().url}: ${message.text()}`)
  })
  return context
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

async function signOut(page: Page): Promise<void> {
  const askedFor: string[] = []
  const note = (request: Request) => askedFor.push(new URL(request.url()).pathname)
  page.on('request', note)
  await page.getByRole('button', { name: ADMIN.name }).click()
  await page.getByRole('menuitem', { name: 'Sign out' }).click()
  await page.waitForURL('**/login')
  await page.getByLabel('Email address').waitFor()
  page.off('request', note)
  // Signed out, the frame that was left asks for nothing more as the person it showed (such a
  // request's 401 would send them to sign in again, with a return address).
  expect(askedFor.filter((path) => path === '/api/users/me')).toEqual([])
}

const api = (path: string, init?: ApiInit) => apiRequest(server, path, init)

/** A TOTP code for a step after every one used so far (the service refuses a step twice). */
let lastStepUsed = 0
async function freshCode(secret: string): Promise<string> {
  for (;;) {
    const now = Date.now()
    const step = Math.floor(now / 30_000)
    // The service accepts one step either side of its clock: the step before too, while the
    // request cannot reach it after the next step has begun.
    const offsets = now % 30_000 < 25_000 ? [-1, 0, 1] : [0, 1]
    for (const offset of offsets) {
      if (step + offset > lastStepUsed) {
        lastStepUsed = step + offset
        return totpCode(secret, new Date(now), offset)
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 30_000 - (now % 30_000) + 200))
  }
}

/**
 * One request from a signed-in page of the console, with its session cookie and CSRF token: how a
 * test arranges what takes an interactive session rather than an API token.
 */
async function sessionRequest(
  page: Page,
  path: string,
  init: { method: string; body?: unknown },
): Promise<{ status: number; text: string }> {
  return page.evaluate(
    async ({ path, method, body }) => {
      const csrf = decodeURIComponent(
        document.cookie
          .split('; ')
          .find((c) => c.startsWith('csrf_token='))
          ?.slice('csrf_token='.length) ?? '',
      )
      const response = await fetch(path, {
        method,
        headers: {
          'x-csrf-token': csrf,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      })
      return { status: response.status, text: await response.text() }
    },
    { path, method: init.method, body: init.body },
  )
}

beforeAll(async () => {
  server = await startConsoleServer()
  browser = await openBrowser()
  oidc = await startOidcProvider({
    redirectUris: [`${server.baseUrl}/api/auth/oidc/${PROVIDER_KEY}/callback`],
  })
  smtp = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
  })
}, 120_000)

/**
 * The link that starts with `prefix` in the newest mail to `to` carrying one (security notices
 * carry none).
 */
function mailedLink(to: string, prefix: string): string {
  const escaped = `${server.baseUrl}${prefix}`.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  const pattern = new RegExp(`${escaped}\\?token=[A-Za-z0-9_-]+`)
  const mail = smtp.received.filter((m) => m.to.includes(to) && pattern.test(textOf(m))).at(-1)
  expect(mail, `a mail to ${to} with a ${prefix} link`).toBeTruthy()
  return pattern.exec(textOf(mail!))![0]
}

afterAll(async () => {
  await browser?.close()
  await oidc?.close()
  await smtp?.close()
  await server?.stop()
  if (axeReport.size > 0) {
    const minor = [...axeReport].filter(([, found]) => found.length > 0)
    const grave = [...axeReport.values()]
      .flat()
      .filter((finding) => /^(serious|critical) /.test(finding)).length
    console.log(
      `axe: ${axeReport.size} page views checked; serious/critical: ${grave}; other findings: ${minor.length === 0 ? 'none' : minor.map(([page, found]) => `${page}: ${found.join(', ')}`).join('; ')}`,
    )
  }
})

describe('the console in Chromium', () => {
  let admin: BrowserContext
  let adminPage: Page
  let totpSecret = ''
  let backupCodes: string[] = []
  /**
   * A backup code for a proof the test arranges through the API. The service accepts each TOTP
   * time step once and only one step either side of its clock, so at most three codes per 30 s:
   * the codes typed into the console (enrolment, the sign-ins) keep the TOTP steps, and a fourth
   * TOTP code would wait for the next step. Taken from the end of the list: the sign-in test
   * spends the first ones.
   */
  let arranged = 0
  const arrangingCode = () => backupCodes[backupCodes.length - 1 - arranged++]!

  it('first run: setup creates the administrator and lands signed in; sign out; sign in again', async () => {
    admin = await newContext()
    await admin.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl })
    adminPage = await admin.newPage()
    await adminPage.goto('/')
    await adminPage.waitForURL('**/setup')
    await expectHeading(adminPage, 'Set up Switchboard')
    await checkAccessibility(adminPage, 'setup')

    // Sent empty, the form names every missing field at once and focuses the first; an empty
    // address is missing, not "too short". Then with the name alone, focus goes to the address.
    const errorAt = async (page: Page, label: string) => {
      const input = page.getByLabel(label, { exact: true })
      if ((await input.getAttribute('aria-invalid')) !== 'true') return null
      const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(' ')
      return page.locator(`[id="${ids.at(-1)}"]`).textContent()
    }
    const focusedName = (page: Page) =>
      page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name ?? null)
    const submit = adminPage.getByRole('button', { name: 'Create administrator account' })
    await submit.click()
    await expect.poll(() => focusedName(adminPage)).toBe('name')
    for (const label of ['Name', 'Email address', 'Password'])
      expect(await errorAt(adminPage, label), label).toBe('Fill in this field.')
    await checkAccessibility(adminPage, 'setup, nothing filled in')
    await adminPage.getByLabel('Name').fill(ADMIN.name)
    await submit.click()
    await expect.poll(() => errorAt(adminPage, 'Name')).toBeNull()
    await expect.poll(() => focusedName(adminPage)).toBe('email')
    expect(await errorAt(adminPage, 'Email address')).toBe('Fill in this field.')
    expect(await errorAt(adminPage, 'Password')).toBe('Fill in this field.')
    // The same in German.
    const german = await (await newContext({ locale: 'de-DE' })).newPage()
    await german.goto('/setup')
    await german.getByRole('button', { name: 'Administratorkonto anlegen' }).click()
    await expect.poll(() => focusedName(german)).toBe('name')
    for (const label of ['Name', 'E-Mail-Adresse', 'Passwort'])
      expect(await errorAt(german, label), label).toBe('Füllen Sie dieses Feld aus.')
    await german.context().close()

    await adminPage.getByLabel('Name').fill(ADMIN.name)
    await adminPage.getByLabel('Email address').fill(ADMIN.email)
    await adminPage.getByLabel('Password').fill(ADMIN.password)
    await adminPage.getByRole('button', { name: 'Create administrator account' }).click()
    await adminPage.waitForURL(`${server.baseUrl}/links`)
    await expectHeading(adminPage, 'Links')
    // The heading has the focus (for the announcement) without a focus box; an empty list offers
    // no sort.
    const heading = adminPage.getByRole('heading', { level: 1 })
    await expect.poll(() => heading.evaluate((h1) => h1 === document.activeElement)).toBe(true)
    expect(await heading.evaluate((h1) => getComputedStyle(h1).outlineStyle)).toBe('none')
    await adminPage.getByRole('button', { name: 'Create link' }).first().waitFor()
    expect(await adminPage.getByRole('link', { name: 'Sort: most clicked first' }).count()).toBe(0)
    // The credential is the HttpOnly cookie; nothing is kept in the page's storage.
    expect(await adminPage.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([
      0, 0,
    ])
    expect(await adminPage.evaluate(() => document.cookie)).not.toMatch(/(^|; )token=/)
    await checkAccessibility(adminPage, 'home')

    await signOut(adminPage)
    await expectHeading(adminPage, 'Sign in')
    await checkAccessibility(adminPage, 'login')
    await signIn(adminPage, ADMIN.email, ADMIN.password)
    await adminPage.waitForURL(`${server.baseUrl}/links`)
    await expectHeading(adminPage, 'Links')

    // An API token for arranging the later steps through the API.
    const login = await api('/api/auth/login', {
      method: 'POST',
      body: { email: ADMIN.email, password: ADMIN.password },
    })
    const jwt = ((await login.json()) as { token: string }).token
    const created = await api('/api/tokens', {
      method: 'POST',
      token: jwt,
      body: {
        name: 'e2e-arrange',
        permissions: ALL_TOKEN_PERMISSIONS,
        organization_boundary: 'all',
      },
    })
    adminApiToken = ((await created.json()) as { token: string }).token
  })

  it('shows a wrong password at the password field, and focuses it', async () => {
    const context = await newContext()
    const page = await context.newPage()
    await page.goto('/login')
    await signIn(page, ADMIN.email, 'not-the-password')
    const password = page.getByLabel('Password', { exact: true })
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await password.getAttribute('aria-describedby')) ?? ''
    expect(await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent()).toContain(
      'The email address or password is incorrect.',
    )
    await expect
      .poll(() => password.evaluate((element) => element === document.activeElement))
      .toBe(true)
    await checkAccessibility(page, 'login with an error')
    await context.close()
  })

  it('creates a read-only links token, copies it, uses it (a list works, a creation names the permission it lacks), revokes it, and it stops working', async () => {
    await adminPage.goto('/account/tokens')
    await expectHeading(adminPage, 'API tokens')
    // The list comes first; the form is folded until asked for.
    await adminPage.getByTestId('token-e2e-arrange').waitFor()
    expect(await adminPage.getByLabel('Name').count()).toBe(0)
    await adminPage.getByRole('button', { name: 'New token' }).click()
    await expect
      .poll(() => adminPage.evaluate(() => (document.activeElement as HTMLInputElement).name))
      .toBe('name')
    const listTop = (await adminPage.getByTestId('tokens').boundingBox())!.y
    expect((await adminPage.getByLabel('Name').boundingBox())!.y).toBeGreaterThan(listTop)
    await adminPage.getByLabel('Name').fill('deploy-ci')
    await adminPage.getByLabel('Links, tags and go links').selectOption('read')
    // Each area lists the operations it opens, from the OpenAPI document.
    const links = adminPage.getByTestId('area-links')
    await links.getByText(/\d+ operations/).click()
    await expect
      .poll(() => links.getByText('GET /api/links', { exact: true }).count())
      .toBeGreaterThan(0)
    await expect
      .poll(() => adminPage.getByTestId('token-summary').textContent())
      .toMatch(/read Links, tags and go links — in your personal resources only, until/)
    await checkAccessibility(adminPage, 'token creation form')
    await adminPage.getByRole('button', { name: 'Create token' }).click()
    // The secret is shown where the person is: a dialog in the viewport, holding the focus.
    const reveal = adminPage.getByRole('dialog', { name: 'Token deploy-ci created' })
    await reveal.waitFor()
    const box = (await reveal.boundingBox())!
    expect(box.y).toBeGreaterThanOrEqual(0)
    expect(box.y + box.height).toBeLessThanOrEqual(800)
    await expect
      .poll(() => reveal.evaluate((dialog) => dialog.contains(document.activeElement)))
      .toBe(true)
    // The form behind it folded away: no reset form saying the token can do nothing.
    expect(await adminPage.getByLabel('Name').count()).toBe(0)
    await reveal.getByRole('button', { name: 'Copy token' }).click()
    const copied = await adminPage.evaluate(() => navigator.clipboard.readText())
    expect(copied).toMatch(/^sb_/)
    expect(await adminPage.getByTestId('new-token').textContent()).toBe(copied)
    const [file] = await Promise.all([
      adminPage.waitForEvent('download'),
      reveal.getByRole('button', { name: 'Download' }).click(),
    ])
    expect(file.suggestedFilename()).toBe('switchboard-token-deploy-ci.txt')
    expect(fs.readFileSync(await file.path(), 'utf8').trim()).toBe(copied)
    // Escape does not lose the secret.
    await adminPage.keyboard.press('Escape')
    expect(await reveal.count()).toBe(1)
    await checkAccessibility(adminPage, 'tokens with a new token')

    const list = await api('/api/links', { token: copied })
    expect(list.status).toBe(200)
    const create = await api('/api/links', {
      method: 'POST',
      token: copied,
      body: { url: 'https://example.com/' },
    })
    expect(create.status).toBe(403)
    const refusal = (await create.json()) as {
      reason: string
      message: string
      details: { required: string }
    }
    expect(refusal).toMatchObject({
      reason: 'INSUFFICIENT_SCOPE',
      details: { required: 'links:write' },
    })
    expect(refusal.message).toContain('links:write')
    // Its account is out of its reach: no profile permission, and the sessions are session-only.
    expect((await api('/api/users/me', { token: copied })).status).toBe(403)
    expect(
      (
        (await (await api('/api/users/me/sessions', { token: copied })).json()) as {
          reason: string
        }
      ).reason,
    ).toBe('SESSION_REQUIRED')

    const done = reveal.getByRole('button', { name: 'Done' })
    expect(await done.getAttribute('aria-disabled')).toBe('true')
    await reveal.getByLabel('I have saved this token').check()
    await done.click()
    await expect.poll(() => reveal.count()).toBe(0)
    const row = adminPage.getByTestId('token-deploy-ci')
    expect(await row.textContent()).toContain('Links, tags and go links: Read')
    expect(await row.textContent()).toContain('Personal only')
    await adminPage.getByRole('button', { name: 'Revoke token deploy-ci' }).click()
    const dialog = adminPage.getByRole('alertdialog')
    expect(await dialog.getByRole('heading').textContent()).toBe('Revoke token deploy-ci?')
    await checkAccessibility(adminPage, 'revoke token dialog')
    await dialog.getByRole('button', { name: 'Revoke token' }).click()
    await expect.poll(() => adminPage.getByRole('row', { name: /deploy-ci/ }).count()).toBe(0)
    expect((await api('/api/links', { token: copied })).status).toBe(401)
  })

  it('revokes another session, and that browser is signed out', async () => {
    const laptop = await newContext()
    const laptopPage = await laptop.newPage()
    await laptopPage.goto('/login')
    await signIn(laptopPage, ADMIN.email, ADMIN.password)
    await laptopPage.waitForURL(`${server.baseUrl}/links`)

    await adminPage.goto('/account/security')
    await expectHeading(adminPage, 'Security')
    const rows = adminPage.getByTestId('sessions').locator('tbody tr')
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3)
    await expect.poll(() => adminPage.getByText('This device').count()).toBe(1)
    await checkAccessibility(adminPage, 'security')
    // The newest other session is the laptop's (newest first; the first row that is not this
    // device).
    const other = rows.filter({ hasNot: adminPage.getByText('This device') }).first()
    await other.getByRole('button', { name: /^Sign out / }).click()

    await laptopPage.goto('/account')
    await laptopPage.waitForURL('**/login?**')
    await expectHeading(laptopPage, 'Sign in')
    await laptop.close()
  })

  it('signed out, /go/<slug> asks to sign in and then arrives at the link', async () => {
    const target = `${server.baseUrl}/api/health`
    const link = await api('/api/links', {
      method: 'POST',
      token: adminApiToken,
      body: { url: target, slug: 'handbook' },
    })
    expect(link.status).toBe(201)
    const context = await newContext()
    const page = await context.newPage()
    await page.goto('/go/handbook')
    await page.waitForURL('**/login?return_to=%2Fgo%2Fhandbook')
    await signIn(page, ADMIN.email, ADMIN.password)
    await page.waitForURL(target)
    await context.close()
  })

  it('enrols two-factor authentication from the written-out secret and shows the backup codes once', async () => {
    await adminPage.goto('/account/security')
    // No password field on the page: the sign-in's re-authentication window lets it through, else a
    // dialog asks.
    await adminPage.getByRole('button', { name: 'Enable two-factor authentication' }).click()
    const secret = adminPage.getByTestId('totp-secret')
    await confirmIfAsked(adminPage, secret, ADMIN.password)
    // Every step moves focus to its new content, never to <body>.
    const focusedId = () =>
      adminPage.evaluate(() =>
        document.activeElement === document.body
          ? 'body'
          : (document.activeElement?.getAttribute('data-testid') ?? ''),
      )
    await expect.poll(focusedId).toBe('enrol-first-step')
    totpSecret = ((await secret.textContent()) ?? '').replace(/\s+/g, '')
    expect(totpSecret).toMatch(/^[A-Z2-7]{32}$/)
    await expect
      .poll(() =>
        adminPage.getByRole('img', { name: 'QR code for your authenticator app' }).count(),
      )
      .toBe(1)
    // Judged from the top of the page: starting the set-up may scroll, and a control scrolled under
    // the sticky bar is partly covered, which axe rightly counts against its size (as in
    // passkeys.e2e.test.ts).
    await adminPage.evaluate(() => window.scrollTo(0, 0))
    await checkAccessibility(adminPage, 'security, enrolment')

    await adminPage.getByLabel('Code from the app').fill(await freshCode(totpSecret))
    // On by default; the arranging token must survive this step.
    const alsoRevoke = adminPage.getByLabel('Also revoke my API tokens')
    expect(await alsoRevoke.isChecked()).toBe(true)
    await alsoRevoke.uncheck()
    await adminPage.getByRole('button', { name: 'Confirm and enable' }).click()
    const codes = adminPage.getByTestId('backup-codes').locator('code')
    await expect.poll(() => codes.count()).toBe(10)
    backupCodes = await codes.allTextContents()
    // Shown where the person is: a dialog in the viewport that holds the focus.
    const shown = adminPage.getByRole('dialog', { name: 'Your backup codes' })
    const box = (await shown.boundingBox())!
    expect(box.y).toBeGreaterThanOrEqual(0)
    expect(box.y + box.height).toBeLessThanOrEqual(800)
    await expect
      .poll(() => shown.evaluate((dialog) => dialog.contains(document.activeElement)))
      .toBe(true)
    const [file] = await Promise.all([
      adminPage.waitForEvent('download'),
      shown.getByRole('button', { name: 'Download as text file' }).click(),
    ])
    expect(fs.readFileSync(await file.path(), 'utf8')).toContain(backupCodes[0]!)
    await checkAccessibility(adminPage, 'security, backup codes')
    // The panel closes only after the person says the codes are stored.
    const done = adminPage.getByRole('button', { name: 'Done' })
    expect(await done.getAttribute('aria-disabled')).toBe('true')
    await adminPage.getByLabel('I have stored these codes').check()
    await done.click()
    await expect
      .poll(() => adminPage.getByTestId('mfa-state').textContent())
      .toContain('10 backup codes left')
    await expect.poll(focusedId).toBe('mfa-state')
  })

  it('signs in with a code, then with a backup code, and refuses that backup code a second time', async () => {
    await signOut(adminPage)
    await signIn(adminPage, ADMIN.email, ADMIN.password)
    await adminPage.waitForURL('**/login/mfa**')
    await expectHeading(adminPage, 'Two-factor authentication')
    // The code field has the focus, so the code can be typed at once.
    await expect
      .poll(() =>
        adminPage.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name),
      )
      .toBe('code')
    await checkAccessibility(adminPage, 'second step')
    await adminPage.getByLabel('Code').fill(await freshCode(totpSecret))
    await adminPage.getByRole('button', { name: 'Verify and sign in' }).click()
    await adminPage.waitForURL(`${server.baseUrl}/links`)

    const backup = backupCodes[0]!
    for (const attempt of ['accepted', 'refused'] as const) {
      await signOut(adminPage)
      await signIn(adminPage, ADMIN.email, ADMIN.password)
      await adminPage.waitForURL('**/login/mfa**')
      const code = adminPage.getByLabel('Code')
      await code.fill(backup)
      await adminPage.getByRole('button', { name: 'Verify and sign in' }).click()
      if (attempt === 'accepted') {
        await adminPage.waitForURL(`${server.baseUrl}/links`)
        // The first page says a backup code was spent, and how many are left (once).
        await expect
          .poll(() => adminPage.getByTestId('backup-code-used').textContent())
          .toContain('9 backup codes are left')
      } else {
        await expect.poll(() => code.getAttribute('aria-invalid')).toBe('true')
        expect(await adminPage.locator('.field-error').textContent()).toContain(
          'That code is not correct or was already used.',
        )
      }
    }
    // Finish this sign-in with another backup code, so the next steps start signed in.
    await adminPage.getByLabel('Code').fill(backupCodes[1]!)
    await adminPage.getByRole('button', { name: 'Verify and sign in' }).click()
    await adminPage.waitForURL(`${server.baseUrl}/links`)

    // The activity list says which sign-ins spent a backup code, in English and in German.
    await adminPage.goto('/account/activity')
    const logins = adminPage.getByTestId('security-events').locator('tr[data-action="auth.login"]')
    const loginText = (index: number) => logins.nth(index).locator('td').first().textContent()
    await expect.poll(() => loginText(0)).toBe('Signed in with a backup code')
    expect(await loginText(1)).toBe('Signed in with a backup code')
    expect(await loginText(2)).toBe('Signed in')
    const language = (value: string) =>
      sessionRequest(adminPage, '/api/users/me', { method: 'PATCH', body: { language: value } })
    expect((await language('de')).status).toBe(200)
    await adminPage.reload()
    await expect.poll(() => loginText(0)).toBe('Mit einem Backup-Code angemeldet')
    expect(await loginText(2)).toBe('Angemeldet')
    expect((await language('en')).status).toBe(200)
    await adminPage.reload()
    await expect.poll(() => loginText(0)).toBe('Signed in with a backup code')
  })

  it('signs in through the identity provider and lands signed in on the console', async () => {
    // A new identity provider takes Ada's session and her proof: her password and a code — a
    // backup code, which takes no TOTP time step (see `arrangingCode`).
    const created = await sessionRequest(adminPage, '/api/oidc-providers', {
      method: 'POST',
      body: {
        current_password: ADMIN.password,
        code: arrangingCode(),
        provider_key: PROVIDER_KEY,
        name: 'Stand-in ID',
        issuer_url: oidc.issuer,
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        auto_create_users: true,
      },
    })
    expect(created.status, created.text).toBe(201)
    oidc.accounts.set('grace', {
      email: 'grace@example.com',
      email_verified: true,
      name: 'Grace Hopper',
    })
    oidc.loginAs = 'grace'

    const context = await newContext()
    const page = await context.newPage()
    await page.goto('/login')
    const provider = page.getByRole('link', { name: 'Sign in with Stand-in ID' })
    await provider.waitFor()
    // The passkey section, which comes later, does not move the link under the pointer.
    const shown = await provider.boundingBox()
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()
    expect(await provider.boundingBox()).toEqual(shown)
    await provider.click()
    await page.waitForURL(`${server.baseUrl}/links`)
    await expectHeading(page, 'Links')

    // Not an administrator: the administration says so on a page of its own.
    await page.goto('/admin')
    await expectHeading(page, 'Not allowed')
    await checkAccessibility(page, 'forbidden')
    await context.close()
  })

  it('an invitation offers the identity provider to someone without an account; back signed in, they accept', async () => {
    const org = await api('/api/organizations', {
      method: 'POST',
      token: adminApiToken,
      body: { name: 'Hopper Lab' },
    })
    expect(org.status).toBe(201)
    const { id, slug } = (await org.json()) as { id: string; slug: string }
    const invited = await api(`/api/organizations/${id}/invitations`, {
      method: 'POST',
      token: adminApiToken,
      body: { email: 'hedy@example.com', role: 'member' },
    })
    expect(invited.status).toBe(201)
    const { link } = (await invited.json()) as { link: string }
    oidc.accounts.set('hedy', { email: 'hedy@example.com', email_verified: true, name: 'Hedy' })
    oidc.loginAs = 'hedy'

    const context = await newContext()
    const page = await context.newPage()
    await page.goto(link)
    await expectHeading(page, 'Invitation')
    // Name and password, or the instance's identity provider.
    await page.getByRole('region', { name: 'Create your account' }).waitFor()
    const providers = page.getByRole('region', { name: 'Or join with' })
    await checkAccessibility(page, 'invitation with an identity provider')
    await providers.getByRole('link', { name: 'Sign in with Stand-in ID' }).click()
    // The provider's callback lands on the home page, which returns to the invitation.
    await page.waitForURL((url) => url.pathname === '/invitations/accept')
    await page.getByText('You are signed in as hedy@example.com.').waitFor()
    await page.getByRole('button', { name: 'Accept invitation' }).click()
    await page.getByRole('link', { name: 'Open Hopper Lab' }).click()
    await page.waitForURL(`${server.baseUrl}/orgs/${slug}`)
    await expectHeading(page, 'Hopper Lab')
    await context.close()
  })

  it('with two-factor, the identity provider sign-in lands on the second step and completes it', async () => {
    oidc.accounts.set('ada', { email: ADMIN.email, email_verified: true, name: ADMIN.name })
    oidc.loginAs = 'ada'
    // An administrator's account is never linked by email: Ada links the provider from her own
    // signed-in session first (the link endpoint answers the provider's authorization URL).
    const link = await sessionRequest(adminPage, `/api/users/me/identities/${PROVIDER_KEY}/link`, {
      method: 'POST',
    })
    expect(link.status, link.text).toBe(200)
    const { authorization_url } = JSON.parse(link.text) as { authorization_url: string }
    await adminPage.goto(authorization_url)
    await adminPage.waitForURL(`${server.baseUrl}/account?linked=${PROVIDER_KEY}`)

    const context = await newContext()
    const page = await context.newPage()
    const lately = recordActivity(page)
    await page.goto('/login')
    await page.getByRole('link', { name: 'Sign in with Stand-in ID' }).click()
    // The path alone: the callback's address carries the token in its fragment until the page
    // removes it.
    await page
      .waitForURL((url) => url.pathname === '/login/mfa')
      .catch((error: unknown) => {
        throw new Error(`not on /login/mfa: ${lately()}`, { cause: error })
      })
    await expectHeading(page, 'Two-factor authentication')
    // The mfa_token came in the fragment and is gone from the address bar.
    expect(new URL(page.url()).hash).toBe('')
    await page.getByLabel('Code').fill(await freshCode(totpSecret))
    await page.getByRole('button', { name: 'Verify and sign in' }).click()
    await page.waitForURL(`${server.baseUrl}/links`)
    await expectHeading(page, 'Links').catch((error: unknown) => {
      throw new Error(`not the Links page: ${lately()}`, { cause: error })
    })
    await context.close()
  })

  it('shows an OIDC failure as a sentence on the sign-in page', async () => {
    oidc.loginAs = null
    const context = await newContext()
    const page = await context.newPage()
    await page.goto('/login')
    await page.getByRole('link', { name: 'Sign in with Stand-in ID' }).click()
    await page.waitForURL('**/login?error=ACCESS_DENIED')
    expect(await page.getByRole('alert').textContent()).toBe(
      'The identity provider did not let you sign in.',
    )
    await context.close()
  })

  it('changes the email address through the mailed link (pending until then), and the password', async () => {
    // A new mail server and sender take Ada's session and her proof.
    const smtpSettings = await sessionRequest(adminPage, '/api/admin/settings/smtp', {
      method: 'PUT',
      body: {
        current_password: ADMIN.password,
        code: arrangingCode(),
        enabled: true,
        host: smtp.host,
        port: smtp.port,
        username: SMTP_USERNAME,
        password: SMTP_PASSWORD,
        // The stand-in offers no TLS; credentials in clear only because it is on loopback.
        plaintext_auth_on_loopback: true,
        from_address: 'no-reply@example.com',
      },
    })
    expect(smtpSettings.status, smtpSettings.text).toBe(200)
    // Ada's address now belongs to the identity provider she signed in with: Lin has a password
    // account.
    expect(
      (await api('/api/admin/users', { method: 'POST', token: adminApiToken, body: LIN })).status,
    ).toBe(201)
    const linContext = await newContext()
    const linPage = await linContext.newPage()
    await linPage.goto('/login')
    await signIn(linPage, LIN.email, LIN.password)
    await linPage.waitForURL(`${server.baseUrl}/links`)
    const newEmail = 'lin@lattice.example'
    await linPage.goto('/account')
    await expectHeading(linPage, 'Profile')
    // No password field on the profile — inside the sign-in's re-authentication window the change
    // needs none.
    expect(await linPage.locator('main input[type="password"]').count()).toBe(0)
    const emailSection = linPage.getByRole('region', { name: 'Email address' })
    await emailSection.getByLabel('New email address').fill(newEmail)
    await emailSection.getByRole('button', { name: 'Change email address' }).click()
    await expect.poll(() => linPage.getByTestId('email-pending').textContent()).toContain(newEmail)

    const link = mailedLink(newEmail, '/verify-email')
    const mailbox = await newContext()
    const page = await mailbox.newPage()
    await page.goto(link)
    await expectHeading(page, 'Confirm email address')
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe(`Your email address is now ${newEmail}.`)
    // The single-use token is gone from the address bar and the history.
    expect(new URL(page.url()).search).toBe('')
    await checkAccessibility(page, 'verify email, done')
    await mailbox.close()
    LIN.email = newEmail

    // The password is changed in one place, the Security page, which the profile points to.
    await linPage
      .getByTestId('profile-security')
      .getByRole('link', { name: 'Open the Security page' })
      .click()
    await expectHeading(linPage, 'Security')
    await linPage
      .getByTestId('security-summary')
      .getByRole('button', { name: 'Change password' })
      .click()
    const passwordForm = linPage.getByRole('form', { name: 'Change password' })
    await passwordForm.getByLabel('New password').fill('difference-engine-1822')
    await passwordForm.getByRole('button', { name: 'Change password' }).click()
    await passwordForm.waitFor({ state: 'detached' })
    LIN.password = 'difference-engine-1822'
    expect(
      (
        await api('/api/auth/login', {
          method: 'POST',
          body: { email: newEmail, password: LIN.password },
        })
      ).status,
    ).toBe(200)
    await linContext.close()
  })

  it('accepts an invitation: signed out, it asks to sign in first and comes back to accept', async () => {
    const lin = LIN
    const organization = (await (
      await api('/api/organizations', {
        method: 'POST',
        token: adminApiToken,
        body: { name: 'Research' },
      })
    ).json()) as {
      id: string
    }
    const invited = await api(`/api/organizations/${organization.id}/invitations`, {
      method: 'POST',
      token: adminApiToken,
      body: { email: lin.email, role: 'member' },
    })
    expect(invited.status).toBe(201)

    const context = await newContext()
    const page = await context.newPage()
    await page.goto(mailedLink(lin.email, '/invitations/accept'))
    await expectHeading(page, 'Invitation')
    await page.getByRole('link', { name: 'Sign in to accept' }).click()
    await expectHeading(page, 'Sign in')
    await signIn(page, lin.email, lin.password)
    await page.waitForURL('**/invitations/accept?token=*')
    await page.getByRole('button', { name: 'Accept invitation' }).click()
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe('You joined Research as member.')
    await checkAccessibility(page, 'invitation accepted')
    await context.close()
  })

  it('renders in German and in the dark theme once the profile says so', async () => {
    await adminPage.goto('/account')
    await expectHeading(adminPage, 'Profile')
    await checkAccessibility(adminPage, 'profile')
    await adminPage.getByLabel('Language').selectOption('de')
    await adminPage.getByLabel('Dark').check()
    await adminPage.getByRole('button', { name: 'Save profile' }).click()
    await expectHeading(adminPage, 'Profil')
    expect(
      await adminPage.evaluate(() => [
        document.documentElement.lang,
        document.documentElement.dataset.theme,
      ]),
    ).toEqual(['de', 'dark'])
    const background = await adminPage.evaluate(
      () => getComputedStyle(document.body).backgroundColor,
    )
    expect(background).toBe('rgb(15, 17, 21)')

    for (const [path, title] of [
      ['/account/security', 'Sicherheit'],
      ['/account/tokens', 'API-Tokens'],
      ['/', 'Links'],
    ] as const) {
      await adminPage.goto(path)
      await expectHeading(adminPage, title)
      const screenshot = await adminPage.screenshot()
      expect(screenshot.length).toBeGreaterThan(10_000)
      await checkAccessibility(adminPage, `${path} in German`)
    }
  })

  it('has pages of its own for not found, offline, a failed page, and mailed links', async () => {
    const context = await newContext({ locale: 'de-DE' })
    const page = await context.newPage()
    await page.goto('/login')
    await expectHeading(page, 'Anmelden')
    await checkAccessibility(page, 'login in German')

    await page.goto('/verify-email?token=not-a-real-token')
    await expectHeading(page, 'E-Mail-Adresse bestätigen')
    await expect.poll(() => page.getByRole('alert').count()).toBe(1)
    expect(new URL(page.url()).search).toBe('')
    await checkAccessibility(page, 'verify email, invalid link')

    await page.goto('/invitations/accept?token=abc')
    await expectHeading(page, 'Einladung')
    // An unknown or spent link asks to sign in (the account may have been made with it).
    await page
      .getByText('Dieser Link wurde bereits verwendet oder ist abgelaufen.', { exact: false })
      .waitFor()
    await page.getByRole('link', { name: 'Anmelden', exact: true }).waitFor()
    await checkAccessibility(page, 'invitation, signed out')
    await context.close()

    await adminPage.goto('/account/nothing-here')
    await expectHeading(adminPage, 'Seite nicht gefunden')
    await checkAccessibility(adminPage, 'not found')

    await adminPage.route('**/api/**', (route) => route.abort('connectionrefused'))
    await adminPage.evaluate(() => window.history.pushState(null, '', '/'))
    await adminPage.goto('/account/tokens')
    // Without an answer from the API the person's language is unknown: the browser's is used.
    await expectHeading(adminPage, 'Switchboard cannot be reached')
    await checkAccessibility(adminPage, 'offline')
    await adminPage.unroute('**/api/**')

    // An error the API answered is said as what it is, not as a lost connection.
    const organizations = (url: URL) => url.pathname.startsWith('/api/organizations')
    await adminPage.route(organizations, (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'Too Many Requests', reason: 'RATE_LIMITED', message: 'x' }),
      }),
    )
    await adminPage.goto('/orgs/some-organization')
    await expectHeading(adminPage, 'Diese Seite konnte nicht angezeigt werden')
    await adminPage
      .getByText('Zu viele Versuche. Warten Sie kurz und versuchen Sie es erneut.')
      .waitFor()
    await checkAccessibility(adminPage, 'a page that failed')
    // The keyboard reaches the one thing to do.
    await adminPage.keyboard.press('Tab')
    expect(await adminPage.evaluate(() => document.activeElement?.textContent)).toBe(
      'Erneut versuchen',
    )
    // At phone width the page fits without scrolling sideways.
    const desktop = adminPage.viewportSize()!
    await adminPage.setViewportSize({ width: 390, height: 844 })
    expect(
      await adminPage.evaluate(() => document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(390)
    await adminPage.setViewportSize(desktop)
    await adminPage.unroute(organizations)
  })

  it('ran under the console CSP without a single violation', () => {
    expect(cspViolations).toEqual([])
  })
})
