/**
 * Passkeys in real Chromium with the DevTools WebAuthn virtual authenticator (a CTAP2 platform
 * authenticator with resident keys and user verification): register one on the security page,
 * rename it, sign out, sign in with the password and the passkey as the (only) second factor, then
 * without a password; add a second one and delete both within the session's re-authentication
 * window (no password or passkey asked again; the window itself is tested with a moved
 * clock in security.e2e.test.ts, the proofs outside it in test/security/passkey-proof.test.ts).
 * WebAuthn refuses IP addresses as relying-party ids, so the server is named
 * http://localhost:<port>. Every page is checked by axe in both themes, and the changed pages in
 * German too; the proof step's texts come from the catalogues.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ALL_TOKEN_PERMISSIONS,
  openBrowser,
  type FileBrowser,
  startConsoleServer,
  type ConsoleServer,
} from './harness.ts'
import { checkAccessibility, confirmIfAsked, expectHeading } from './checks.ts'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import de from '../src/i18n/de/passkeys.json' with { type: 'json' }
import en from '../src/i18n/en/passkeys.json' with { type: 'json' }

const ADMIN = { name: 'Grace Hopper', email: 'grace@example.com', password: 'compiler-cobol-1959' }

let server: ConsoleServer
let browser: FileBrowser
let context: BrowserContext
let page: Page
let cdp: CDPSession
let authenticatorId = ''
let apiToken = ''
const cspViolations: string[] = []

async function api(
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<Response> {
  return fetch(`${server.baseUrl.replace('localhost', '127.0.0.1')}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
}

/** `untilSignInPage` false: the sign-in page may leave at once (conditional UI signs in). */
async function signOut(target: Page, untilSignInPage = true): Promise<void> {
  await target.getByRole('button', { name: ADMIN.name }).click()
  await target.getByRole('menuitem', { name: 'Sign out' }).click()
  if (untilSignInPage) await target.waitForURL('**/login')
}

/**
 * Makes the page (and every page loaded after it) report no conditional-UI support, or undoes that.
 */
const NO_AUTOFILL = 'PublicKeyCredential.isConditionalMediationAvailable = async () => false'
let noAutofillScript: string | null = null
async function withoutAutofill(): Promise<void> {
  await page.evaluate(NO_AUTOFILL)
  noAutofillScript = (
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: NO_AUTOFILL })
  ).identifier
}
async function withAutofill(): Promise<void> {
  if (noAutofillScript !== null)
    await cdp.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: noAutofillScript })
  noAutofillScript = null
}

async function loginMethods(): Promise<unknown[]> {
  const response = await api('/api/admin/audit-log?action=auth.login&limit=10', { token: apiToken })
  const body = (await response.json()) as { items: { metadata: { method?: string } }[] }
  return body.items.map((event) => event.metadata.method)
}

beforeAll(async () => {
  server = await startConsoleServer({}, { host: 'localhost' })
  browser = await openBrowser()
  // The first administrator, then an API token for arranging and checking through the API.
  expect((await api('/api/auth/setup', { method: 'POST', body: { ...ADMIN } })).status).toBe(201)
  const jwt = (
    (await (
      await api('/api/auth/login', {
        method: 'POST',
        body: { email: ADMIN.email, password: ADMIN.password },
      })
    ).json()) as { token: string }
  ).token
  apiToken = (
    (await (
      await api('/api/tokens', {
        method: 'POST',
        token: jwt,
        body: {
          name: 'e2e-passkeys',
          permissions: ALL_TOKEN_PERMISSIONS,
          organization_boundary: 'all',
        },
      })
    ).json()) as { token: string }
  ).token

  context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
  })
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      cspViolations.push(message.text())
  })
  page = await context.newPage()
  cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  ;({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('passkeys in Chromium', () => {
  it('registers a passkey on the security page and renames it', async () => {
    await page.goto('/login')
    await expectHeading(page, 'Sign in')
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()
    expect(await page.getByLabel('Email address').getAttribute('autocomplete')).toBe(
      'username webauthn',
    )
    await checkAccessibility(page, 'login with the passkey option')
    await page.getByLabel('Email address').fill(ADMIN.email)
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expectHeading(page, 'Links')

    await page.goto('/account/security')
    await expectHeading(page, 'Security')
    await page.getByTestId('passkeys-empty').waitFor()
    await checkAccessibility(page, 'security without passkeys')
    const add = page.getByRole('form', { name: 'Add a passkey' })
    await add.getByLabel('Name').fill('Laptop')
    await add.getByRole('button', { name: 'Add a passkey' }).click()
    const row = page.getByTestId('passkeys').getByRole('row', { name: /Laptop/ })
    await confirmIfAsked(page, row, ADMIN.password)
    expect(await row.textContent()).toContain('Never')
    // The authenticator holds one discoverable credential for this site.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    expect(credentials.map((c) => [c.isResidentCredential, c.rpId])).toEqual([[true, 'localhost']])
    await checkAccessibility(page, 'security with a passkey')

    // Rename: a name needs no proof, and focus returns to the button after.
    await page.getByRole('button', { name: 'Rename Laptop' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Name').fill('Work laptop')
    expect(await dialog.getByLabel('Current password').count()).toBe(0)
    await checkAccessibility(page, 'rename passkey dialog')
    await dialog.getByRole('button', { name: 'Rename passkey' }).click()
    await page
      .getByTestId('passkeys')
      .getByRole('row', { name: /Work laptop/ })
      .waitFor()
  })

  it('signs in with the password and the passkey as the second factor', async () => {
    // Chromium's virtual authenticator answers a conditional (autofill) request at once; this step
    // and the next stand for a browser without autofill, so the password and the buttons are used.
    await withoutAutofill()
    await signOut(page)
    await page.getByLabel('Email address').fill(ADMIN.email)
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL('**/login/mfa')
    await page.getByRole('button', { name: 'Use a passkey' }).waitFor()
    await checkAccessibility(page, 'second step with the passkey option')
    await page.getByRole('button', { name: 'Use a passkey' }).click()
    await expectHeading(page, 'Links')
    expect((await loginMethods())[0]).toBe('password+passkey')
  })

  it('signs in without a password with the button', async () => {
    await signOut(page)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await expectHeading(page, 'Links')
    expect((await loginMethods())[0]).toBe('passkey')
    await page.goto('/account/security')
    const row = page.getByTestId('passkeys').getByRole('row', { name: /Work laptop/ })
    await row.waitFor()
    expect(await row.textContent()).not.toContain('Never')
  })

  it('signs in without a password from the email field’s autofill (conditional UI)', async () => {
    await withAutofill()
    // Counted before signing out: the sign-in page shown by signing out may already answer the
    // conditional request, before this test looks.
    const before = (await loginMethods()).length
    // The sign-in page that signing out shows may sign in at once and move on to the Links page
    // before a wait for its address sees it: either ends the sign out.
    await signOut(page, false)
    await expect
      .poll(
        async () =>
          new URL(page.url()).pathname === '/login' || (await loginMethods()).length > before,
      )
      .toBe(true)
    // A new document: the browser's own conditional UI support, and the console starts the request.
    await page.reload()
    await expectHeading(page, 'Links')
    // At least one new sign-in. (Chromium's virtual authenticator may also answer the conditional
    // request still pending in the document being left, which a person's browser never does.)
    expect((await loginMethods()).length).toBeGreaterThan(before)
    expect((await loginMethods())[0]).toBe('passkey')
  })

  it('shows the changed pages in German', async () => {
    expect(
      (await api('/api/users/me', { method: 'PATCH', token: apiToken, body: { language: 'de' } }))
        .status,
    ).toBe(200)
    try {
      await page.goto('/account/security')
      await expectHeading(page, 'Sicherheit')
      await page.getByRole('heading', { name: 'Passkeys' }).waitFor()
      await page
        .getByRole('form', { name: de['passkeys.add'] })
        .getByLabel(de['passkeys.name'])
        .waitFor()
      await checkAccessibility(page, 'security in German')
      const german = await browser.newContext({ baseURL: server.baseUrl, locale: 'de-DE' })
      const login = await german.newPage()
      await login.goto('/login')
      await expectHeading(login, 'Anmelden')
      await login.getByRole('button', { name: 'Mit einem Passkey anmelden' }).waitFor()
      await checkAccessibility(login, 'login in German')
      await german.close()
    } finally {
      await api('/api/users/me', { method: 'PATCH', token: apiToken, body: { language: 'en' } })
    }
  })

  it('within the sign-in’s re-authentication window a second passkey is added without asking for the first', async () => {
    await page.goto('/account/security')
    await expectHeading(page, 'Security')
    const add = page.getByRole('form', { name: en['passkeys.add'] })
    await add.getByLabel('Name').fill('Phone')
    // A person makes the new passkey on another device: an authenticator refuses to make a
    // credential while it holds one the server excludes, and keeps one discoverable credential per
    // account. So the first device is "left behind": its credential is taken off the virtual
    // authenticator, which then stands for the new device.
    const proofs: unknown[] = []
    await page.route('**/api/auth/passkeys/registration/options', async (route) => {
      proofs.push((route.request().postDataJSON() as { passkey?: unknown }).passkey)
      for (const { credentialId } of (
        await cdp.send('WebAuthn.getCredentials', { authenticatorId })
      ).credentials) {
        await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId })
      }
      await route.continue()
    })
    await add.getByRole('button', { name: en['passkeys.add'] }).click()
    await page.getByTestId('passkeys').getByRole('row', { name: /Phone/ }).waitFor()
    await page.unroute('**/api/auth/passkeys/registration/options')
    // The sign-in (with the first passkey) opened the window: the request carries no proof.
    expect(proofs).toEqual([undefined])
    // The first passkey signed in: it has been used.
    expect(
      await page
        .getByTestId('passkeys')
        .getByRole('row', { name: /Work laptop/ })
        .textContent(),
    ).not.toContain('Never')
    // Judged from the top of the page: adding scrolled the form into view, and a row scrolled under
    // the sticky bar is partly covered, which axe rightly counts against its buttons' size.
    await page.evaluate(() => window.scrollTo(0, 0))
    await checkAccessibility(page, 'security with two passkeys')
  })

  it('deletes a passkey after a named confirmation, and the last one too within the window', async () => {
    await page.goto('/account/security')
    await expectHeading(page, 'Security')
    await page.getByRole('button', { name: 'Delete Work laptop' }).click()
    const dialog = page.getByRole('alertdialog')
    await dialog.getByRole('heading', { name: 'Delete passkey Work laptop?' }).waitFor()
    await checkAccessibility(page, 'delete passkey confirmation')
    await dialog.getByRole('button', { name: 'Delete passkey' }).click()
    await page
      .getByTestId('passkeys')
      .getByRole('row', { name: /Work laptop/ })
      .waitFor({ state: 'detached' })

    // The last second factor: the dialog says a proof may be asked for; within the window it is
    // not.
    await page.getByRole('button', { name: 'Delete Phone' }).click()
    const last = page.getByRole('alertdialog')
    await last.getByText(en['passkeys.deleteLastProof']).waitFor()
    await last.getByRole('button', { name: 'Delete passkey' }).click()
    await page.getByTestId('passkeys-empty').waitFor()
    const deleted = await api('/api/admin/audit-log?action=passkey.delete&limit=1', {
      token: apiToken,
    })
    const [event] = ((await deleted.json()) as { items: { metadata: Record<string, unknown> }[] })
      .items
    expect(event?.metadata).toMatchObject({ last_factor: true, proof: 'reauthentication' })
  })

  it('with the authenticator app on, a passkey is added within the window without a code, and no backup code is spent', async () => {
    // The app enrolled on the page (enrolling ends the other sessions, so not through the API).
    await page.goto('/account/security')
    await expectHeading(page, 'Security')
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click()
    const secretText = page.getByTestId('totp-secret')
    await confirmIfAsked(page, secretText, ADMIN.password)
    const secret = ((await secretText.textContent()) ?? '').replace(/\s+/g, '')
    await page.getByLabel('Code from the app').fill(totpCode(secret, new Date()))
    await page.getByRole('button', { name: 'Confirm and enable' }).click()
    const codes = page.getByTestId('backup-codes').locator('code')
    await expect.poll(() => codes.count()).toBe(10)
    const backupCodes = await codes.allTextContents()
    await page.getByRole('checkbox', { name: 'I have stored these codes' }).check()
    await page.getByRole('button', { name: 'Done' }).click()

    const add = page.getByRole('form', { name: en['passkeys.add'] })
    await add.getByLabel('Name').fill('Security key')
    expect(await add.getByLabel('Current password').count()).toBe(0)
    await add.getByRole('button', { name: en['passkeys.add'] }).click()
    await page
      .getByTestId('passkeys')
      .getByRole('row', { name: /Security key/ })
      .waitFor()
    await checkAccessibility(page, 'security with the app and a passkey')
    expect(backupCodes).toHaveLength(10)
    await expect
      .poll(async () => page.getByTestId('mfa-state').textContent())
      .toContain('10 backup codes left')
  })

  it('ran under the console CSP without a single violation', () => {
    expect(cspViolations).toEqual([])
  })
})
