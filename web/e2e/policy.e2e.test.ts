/**
 * The two-factor policy in Chromium against the built server: under the two-factor policy a person
 * signing in lands on enrolment and cannot go anywhere else until enrolled; then the rest opens in
 * the same session. The Activity page shows the sign-ins (and a failed one). The administrator's
 * control sets the policy. axe in both themes and both languages.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import {
  apiRequest,
  openBrowser,
  type FileBrowser,
  startConsoleServer,
  type ApiInit,
  type ConsoleServer,
} from './harness.ts'
import { checkAccessibility, confirmIfAsked, expectHeading } from './checks.ts'

const ADMIN = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  password: 'compiler-pioneer-1952',
}
const PERSON = { name: 'Alan Kay', email: 'alan@example.com', password: 'smalltalk-object-1972' }
const KLAUS = { name: 'Klaus Wirth', email: 'klaus@example.com', password: 'pascal-modula-oberon' }

let server: ConsoleServer
let browser: FileBrowser
let adminJwt = ''
let adminBackupCodes: string[] = []

const api = (path: string, init?: ApiInit) => apiRequest(server, path, init)

async function json<T>(response: Promise<Response>, status: number): Promise<T> {
  const answer = await response
  const text = await answer.text()
  expect(answer.status, text).toBe(status)
  return (text === '' ? null : JSON.parse(text)) as T
}

async function newContext(locale = 'en-US'): Promise<BrowserContext> {
  return browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale,
  })
}

async function signIn(
  page: Page,
  email: string,
  password: string,
  labels = { email: 'Email address', password: 'Password', submit: 'Sign in' },
) {
  await page.goto('/login')
  await page.getByLabel(labels.email).fill(email)
  await page.getByLabel(labels.password, { exact: true }).fill(password)
  await page.getByRole('button', { name: labels.submit, exact: true }).click()
}

async function createPerson(person: {
  name: string
  email: string
  password: string
}): Promise<string> {
  const created = await json<{ id: string }>(
    api('/api/admin/users', { method: 'POST', token: adminJwt, body: person }),
    201,
  )
  return created.id
}

beforeAll(async () => {
  server = await startConsoleServer()
  browser = await openBrowser()
  const setup = await json<{ token: string }>(
    api('/api/auth/setup', { method: 'POST', body: ADMIN }),
    201,
  )
  adminJwt = setup.token
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('the two-factor policy and the activity page in Chromium', () => {
  it('the administrator turns on two-factor authentication and requires it of everyone through the control', async () => {
    await createPerson(PERSON)
    const klausId = await createPerson(KLAUS)
    await json(
      api(`/api/admin/users/${klausId}`, {
        method: 'PUT',
        token: adminJwt,
        body: { language: 'de' },
      }),
      200,
    )

    const begin = await json<{ secret: string }>(
      api('/api/auth/mfa/enroll/begin', {
        method: 'POST',
        token: adminJwt,
        body: { password: ADMIN.password },
      }),
      200,
    )
    const confirm = await json<{ backup_codes: string[] }>(
      api('/api/auth/mfa/enroll/confirm', {
        method: 'POST',
        token: adminJwt,
        body: { code: totpCode(begin.secret, new Date()) },
      }),
      200,
    )
    adminBackupCodes = confirm.backup_codes

    const context = await newContext()
    const page = await context.newPage()
    await signIn(page, ADMIN.email, ADMIN.password)
    await page.waitForURL('**/login/mfa**')
    await page.getByLabel('Code', { exact: true }).fill(adminBackupCodes.shift()!)
    await page.getByRole('button', { name: 'Verify and sign in' }).click()
    await page.waitForURL(`${server.baseUrl}/links`)

    await page.goto('/admin/settings')
    await expectHeading(page, 'Settings')
    await checkAccessibility(page, 'admin security policy')
    await page.getByText('Everyone', { exact: true }).click()
    await expect
      .poll(() => page.getByRole('radio', { name: 'Everyone', exact: true }).isChecked())
      .toBe(true)
    const policy = page.locator('section[aria-labelledby="two-factor-policy-heading"]')
    await policy.getByLabel('Current password').fill(ADMIN.password)
    await policy.getByLabel('Code from the app or a backup code').fill(adminBackupCodes.shift()!)
    await page.getByRole('button', { name: 'Save requirement' }).click()
    await expect
      .poll(
        async () =>
          (
            await json<{ required: string }>(
              api('/api/admin/settings/two-factor-policy', { token: adminJwt }),
              200,
            )
          ).required,
      )
      .toBe('everyone')
    // The administrator has a second factor: nothing is closed to them.
    await page.goto('/account/tokens')
    await expectHeading(page, 'API tokens')
    await context.close()
  })

  it('a person without a second factor lands on enrolment, cannot go elsewhere, and after enrolling can', async () => {
    const context = await newContext()
    const page = await context.newPage()
    // A failed attempt first, for the activity page.
    await signIn(page, PERSON.email, 'not the right password')
    await expect
      .poll(() => page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'))
      .toBe('true')
    await signIn(page, PERSON.email, PERSON.password)
    await page.waitForURL('**/account/security')
    await expectHeading(page, 'Security')
    await expect
      .poll(() => page.getByTestId('enrollment-required').textContent())
      .toContain('Set up two-factor authentication to continue')
    // Only enrolment: no sessions, no other navigation.
    expect(await page.getByTestId('sessions').count()).toBe(0)
    const nav = page.getByRole('navigation', { name: 'Main' })
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Security'])
    await checkAccessibility(page, 'enrolment required')

    for (const path of ['/', '/account', '/account/tokens', '/account/activity']) {
      await page.goto(path)
      await page.waitForURL('**/account/security')
      await expectHeading(page, 'Security')
    }

    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click()
    const secretText = page.getByTestId('totp-secret')
    await confirmIfAsked(page, secretText, PERSON.password)
    const secret = ((await secretText.textContent()) ?? '').replace(/\s+/g, '')
    await page.getByLabel('Code from the app').fill(totpCode(secret, new Date()))
    await page.getByRole('button', { name: 'Confirm and enable' }).click()
    await page.getByRole('checkbox', { name: 'I have stored these codes' }).check()
    await page.getByRole('button', { name: 'Done' }).click()
    await expect.poll(() => page.getByTestId('enrollment-required').count()).toBe(0)

    // The same session now reaches everything.
    await page.goto('/account/tokens')
    await expectHeading(page, 'API tokens')
    await page.goto('/account/activity')
    await expectHeading(page, 'Activity')
    const rows = page.getByTestId('security-events').locator('tbody tr')
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3)
    const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')))
    expect(actions.slice(0, 3)).toEqual(['mfa.enable', 'auth.login', 'auth.login_failed'])
    const signedIn = page.locator('tr[data-action="auth.login"]').first()
    expect(await signedIn.textContent()).toContain('127.0.0.1')
    expect(await signedIn.textContent()).toMatch(/Chrome on Linux|Chrome/)
    // Relative time, exact on hover.
    const time = signedIn.locator('time')
    expect(await time.getAttribute('title')).toMatch(/\d{4}/)
    await checkAccessibility(page, 'activity')

    // The new sign-in mail switch sits on the security page.
    await page.goto('/account/security')
    const mailSwitch = page.getByRole('switch', { name: /new browser or device/ })
    expect(await mailSwitch.isChecked()).toBe(true)
    // By keyboard, as the switch is meant to be used too.
    await mailSwitch.focus()
    await page.keyboard.press('Space')
    await expect.poll(() => mailSwitch.isChecked()).toBe(false)
    await checkAccessibility(page, 'security with the mail switch')
    await context.close()
  })

  it('in German, the enrolment page explains the requirement (axe in both themes)', async () => {
    const context = await newContext('de-DE')
    const page = await context.newPage()
    await signIn(page, KLAUS.email, KLAUS.password, {
      email: 'E-Mail-Adresse',
      password: 'Passwort',
      submit: 'Anmelden',
    })
    await page.waitForURL('**/account/security')
    await expect
      .poll(() => page.getByTestId('enrollment-required').textContent())
      .toContain('Zwei-Faktor-Authentifizierung')
    await checkAccessibility(page, 'enrolment required (de)')
    await context.close()
  })

  it('a policy switched on during a session takes the person to enrolment at their next request', async () => {
    const ADA = {
      name: 'Ada Byron',
      email: 'ada.byron@example.com',
      password: 'difference-engine-1822',
    }
    await json(
      api('/api/admin/settings/two-factor-policy', {
        method: 'PUT',
        token: adminJwt,
        body: { required: 'off', current_password: ADMIN.password, code: adminBackupCodes.shift() },
      }),
      200,
    )
    await createPerson(ADA)
    const context = await newContext()
    const page = await context.newPage()
    await signIn(page, ADA.email, ADA.password)
    await page.waitForURL(`${server.baseUrl}/links`)
    await page.goto('/account/activity')
    await expectHeading(page, 'Activity')
    // The Activity page in German, both themes.
    const { token: adaJwt } = await json<{ token: string }>(
      api('/api/auth/login', {
        method: 'POST',
        body: { email: ADA.email, password: ADA.password },
      }),
      200,
    )
    await json(
      api('/api/users/me', { method: 'PATCH', token: adaJwt, body: { language: 'de' } }),
      200,
    )
    await page.reload()
    await expectHeading(page, 'Aktivität')
    await page.getByTestId('security-events').waitFor()
    await checkAccessibility(page, 'activity (de)')
    await json(
      api('/api/admin/settings/two-factor-policy', {
        method: 'PUT',
        token: adminJwt,
        body: {
          required: 'everyone',
          current_password: ADMIN.password,
          code: adminBackupCodes.shift(),
        },
      }),
      200,
    )
    // The policy cache of another instance may lag by a few seconds; this is the same instance.
    await page.goto('/account/tokens')
    await page.waitForURL('**/account/security', { timeout: 15_000 })
    await expect.poll(() => page.getByTestId('enrollment-required').count()).toBe(1)
    await context.close()
  })
})
