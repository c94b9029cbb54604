/**
 * The account's security page in Chromium: the summary at the top, and the
 * re-authentication window ("sudo mode") — a second sensitive change within the window goes
 * through without a prompt, and after 10 minutes the password is asked again, once, after which
 * the next change passes again. The clock is moved through the application's injected clock
 * (test/helpers/app.ts TestClock): this file runs the application in the test process, on the
 * built console, instead of the built server process. In English and German; no sideways scroll at
 * 390 px; axe in both themes.
 */
import net from 'node:net'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from '../../test/helpers/app.ts'
import { createSignedInUser, createUser, enableMfa } from '../../test/helpers/factories.ts'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import { openBrowser, type FileBrowser } from './harness.ts'
import { checkAccessibility, expectHeading } from './checks.ts'
import en from '../src/i18n/en/account-security.json' with { type: 'json' }
import de from '../src/i18n/de/account-security.json' with { type: 'json' }
import enCommon from '../src/i18n/en.json' with { type: 'json' }
import deCommon from '../src/i18n/de.json' with { type: 'json' }
import enReauth from '../src/i18n/en/reauth.json' with { type: 'json' }
import deReauth from '../src/i18n/de/reauth.json' with { type: 'json' }

// The window the service documents (docs/API.md#re-authentication-window;
// src/identity/reauth.ts).
const REAUTH_WINDOW_SECONDS = 10 * 60
const FIRST = 'a first long passphrase'
const SECOND = 'a second long passphrase'
const THIRD = 'a third long passphrase'

let t: TestContext
let baseUrl = ''
let browser: FileBrowser

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await startTestApp({ env: { PUBLIC_URL: baseUrl, LOG_LEVEL: 'warn' } })
  await t.app.listen({ port, host: '127.0.0.1' })
  browser = await openBrowser()
})
afterAll(async () => {
  await browser?.close()
  await t?.close()
})

const common = { en: enCommon, de: deCommon } as const
const words = { en, de } as const

async function signIn(
  language: 'en' | 'de',
  email: string,
  password: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: language,
  })
  const page = await context.newPage()
  await page.goto('/login')
  await page.getByLabel(common[language]['field.email']).fill(email)
  await page.getByLabel(common[language]['field.password'], { exact: true }).fill(password)
  await page.getByRole('button', { name: common[language]['login.submit'], exact: true }).click()
  await page.waitForURL('**/links')
  return { context, page }
}

const auditCount = async (userId: string, action: string) =>
  (
    await t.deps.db
      .selectFrom('audit_events')
      .select('id')
      .where('action', '=', action)
      .where('actor_id', '=', userId)
      .execute()
  ).length

const passwordChangedAt = async (userId: string) =>
  (
    await t.deps.db
      .selectFrom('users')
      .select('password_changed_at')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow()
  ).password_changed_at

/**
 * The console's date and time (i18n.tsx `dateTime`), formatted in the page so the browser's time
 * zone applies.
 */
const consoleDateTime = (page: Page, language: 'en' | 'de', iso: string) =>
  page.evaluate(
    ([tag, at]) =>
      new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' }).format(
        new Date(at),
      ),
    [language, iso] as const,
  )

async function changePassword(page: Page, language: 'en' | 'de', to: string): Promise<void> {
  const summary = page.getByTestId('security-summary')
  await summary
    .getByRole('button', { name: words[language]['accountSecurity.changePassword'] })
    .click()
  const form = page.getByRole('form', { name: words[language]['accountSecurity.changePassword'] })
  await form.getByLabel(common[language]['field.newPassword']).fill(to)
  await form.getByRole('button', { name: common[language]['password.submit'] }).click()
}

describe('the security page and its re-authentication window', () => {
  it('opens with the summary; inside the window two changes pass without a prompt; after 10 minutes it asks once, then not again', async () => {
    const person = await createUser(t, { name: 'Ines Window', password: FIRST })
    // A password set before migration 0032 recorded the time: "Set", without a date.
    await t.deps.db
      .updateTable('users')
      .set({ password_changed_at: null })
      .where('id', '=', person.user.id)
      .execute()
    const { context, page } = await signIn('en', person.email, FIRST)
    await page.goto('/account/security')
    await expectHeading(page, 'Security')
    const summary = page.getByTestId('security-summary')
    for (const label of [
      'Password',
      'Authenticator app',
      'Passkeys',
      'Backup codes',
      'Signed-in devices',
      'Identity provider',
    ]) {
      await expect.poll(() => summary.getByText(label, { exact: true }).count()).toBe(1)
    }
    await expect.poll(() => summary.getByText('1 device', { exact: true }).count()).toBe(1)
    await expect
      .poll(() => page.getByTestId('summary-password').innerText())
      .toContain(en['accountSecurity.passwordSet'])
    // This device first, with how and when it signed in.
    await expect
      .poll(() => page.getByTestId('sessions').locator('tbody tr').first().innerText())
      .toMatch(/This device[\s\S]*Password/)
    await checkAccessibility(page, 'security summary')

    // The sign-in opened the window: the password change and the app's set-up both go through
    // without a dialog.
    await changePassword(page, 'en', SECOND)
    await expect.poll(() => auditCount(person.user.id, 'user.password_change')).toBe(1)
    expect(await page.getByRole('dialog').count()).toBe(0)
    // The summary now says when: "Last changed Nov 26, 2026, 4:31 PM".
    const changedAt = await passwordChangedAt(person.user.id)
    expect(changedAt).not.toBeNull()
    const shown = en['accountSecurity.passwordChanged'].replace(
      '{date}',
      await consoleDateTime(page, 'en', changedAt!),
    )
    await expect.poll(() => page.getByTestId('summary-password').innerText()).toContain(shown)
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click()
    await expect.poll(() => page.getByTestId('totp-secret').count()).toBe(1)
    expect(await page.getByRole('dialog').count()).toBe(0)
    // Each step's new content takes the focus, never <body>: the set-up's first step, and after
    // Cancel the button that starts it again.
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement
        return element === null || element === document.body
          ? 'body'
          : (element.getAttribute('data-testid') ?? element.textContent ?? '')
      })
    await expect.poll(focused).toBe('enrol-first-step')
    await page.getByRole('button', { name: 'Copy key' }).waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(focused).toBe('Enable two-factor authentication')

    // Past the window: the next change asks for the password, once, in a dialog that says why.
    t.clock.advance(REAUTH_WINDOW_SECONDS + 1)
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click()
    const dialog = page.getByRole('dialog', { name: enReauth['reauth.title'] })
    await dialog.waitFor()
    await expect.poll(() => dialog.innerText()).toContain(en['reauth.windowText'])
    await checkAccessibility(page, 'security, re-authentication dialog')
    await dialog.getByLabel('Current password').fill('not my password')
    await dialog.getByRole('button', { name: enReauth['reauth.submit'] }).click()
    await expect.poll(() => dialog.innerText()).toContain('The password is incorrect')
    await dialog.getByLabel('Current password').fill(SECOND)
    await dialog.getByRole('button', { name: enReauth['reauth.submit'] }).click()
    await expect.poll(() => page.getByTestId('totp-secret').count()).toBe(1)
    expect(await page.getByRole('dialog').count()).toBe(0)
    // After the re-authentication, too, focus is on what it let through.
    await expect.poll(focused).toBe('enrol-first-step')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await focused()).toBe('enrol-first-step')
    expect(await auditCount(person.user.id, 'session.reauthenticate')).toBe(1)
    await page.getByRole('button', { name: 'Cancel' }).click()

    // The window is open again: the next sensitive change passes without a prompt.
    await changePassword(page, 'en', THIRD)
    await expect.poll(() => auditCount(person.user.id, 'user.password_change')).toBe(2)
    expect(await page.getByRole('dialog').count()).toBe(0)
    expect(await auditCount(person.user.id, 'session.reauthenticate')).toBe(1)
    await context.close()
  })

  it('in German: the dialog after the window, and no sideways scroll at 390 px', async () => {
    const person = await createUser(t, { name: 'Jonas Fenster', password: FIRST })
    await t.deps.db
      .updateTable('users')
      .set({ language: 'de' })
      .where('id', '=', person.user.id)
      .execute()
    const { context, page } = await signIn('de', person.email, FIRST)
    await page.goto('/account/security')
    await expectHeading(page, 'Sicherheit')
    await expect
      .poll(() =>
        page
          .getByTestId('security-summary')
          .getByText(de['accountSecurity.app'], { exact: true })
          .count(),
      )
      .toBe(1)
    // "Zuletzt geändert am 26.11.2026, 16:31": the creation set it, in the console's German date
    // format.
    const changedAt = await passwordChangedAt(person.user.id)
    const shown = de['accountSecurity.passwordChanged'].replace(
      '{date}',
      await consoleDateTime(page, 'de', changedAt!),
    )
    expect(shown).toMatch(/^Zuletzt geändert am \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/)
    await expect.poll(() => page.getByTestId('summary-password').innerText()).toContain(shown)
    t.clock.advance(REAUTH_WINDOW_SECONDS + 1)
    await page.getByRole('button', { name: deCommon['security.begin'] }).click()
    const dialog = page.getByRole('dialog', { name: deReauth['reauth.title'] })
    await dialog.waitFor()
    await expect.poll(() => dialog.innerText()).toContain(de['reauth.windowText'])
    await dialog.getByLabel(deCommon['field.currentPassword']).fill(FIRST)
    await dialog.getByRole('button', { name: deReauth['reauth.submit'] }).click()
    await expect.poll(() => page.getByTestId('totp-secret').count()).toBe(1)
    await page.getByRole('button', { name: deCommon['common.cancel'] }).click()
    // Focus is back on the start button (scrolled into view); judged from the top of the page, as
    // a control scrolled under the sticky bar is partly covered, which axe counts against its size.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe(deCommon['security.begin'])
    await page.evaluate(() => window.scrollTo(0, 0))
    await checkAccessibility(page, 'security in German')

    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('/account/security')
    await expectHeading(page, 'Sicherheit')
    await page.getByTestId('sessions').waitFor()
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    )
    expect(overflow).toBe(0)
    await checkAccessibility(page, 'security at 390 px')
    await context.close()
  })

  it('signing in at 390 px in German: the password shown on request, another account from the second step; "Backup-Codes" beside its button', async () => {
    const person = await createSignedInUser(t, { name: 'Mara Zweit', password: FIRST })
    const { secret } = await enableMfa(t, { token: person.token, password: FIRST })
    await t.deps.db
      .updateTable('users')
      .set({ language: 'de' })
      .where('id', '=', person.user.id)
      .execute()
    const context = await browser.newContext({
      baseURL: baseUrl,
      viewport: { width: 390, height: 844 },
      locale: 'de',
    })
    const page = await context.newPage()
    const enterPassword = async () => {
      await page.goto('/login')
      await page.getByLabel(deCommon['field.email']).fill(person.email)
      await page.getByLabel(deCommon['field.password'], { exact: true }).fill(FIRST)
    }
    await enterPassword()
    const password = page.getByLabel(deCommon['field.password'], { exact: true })
    const show = page.getByRole('button', { name: deCommon['field.showPassword'] })
    expect(await show.getAttribute('aria-pressed')).toBe('false')
    await show.click()
    expect(await password.getAttribute('type')).toBe('text')
    expect(await password.inputValue()).toBe(FIRST)
    expect(await show.getAttribute('aria-pressed')).toBe('true')
    await checkAccessibility(page, 'sign-in, password shown')
    await show.click()
    expect(await password.getAttribute('type')).toBe('password')
    await page.getByRole('button', { name: deCommon['login.submit'], exact: true }).click()
    await page.waitForURL('**/login/mfa')
    await expectHeading(page, deCommon['mfa.title'])
    // The second step: another account starts the sign-in afresh.
    await page.getByRole('link', { name: deCommon['mfa.otherAccount'] }).click()
    await page.waitForURL((url) => url.pathname === '/login')
    await expectHeading(page, deCommon['login.title'])
    expect(await page.getByLabel(deCommon['field.email']).inputValue()).toBe('')
    await enterPassword()
    await page.getByRole('button', { name: deCommon['login.submit'], exact: true }).click()
    await page.waitForURL('**/login/mfa')
    await page.getByLabel(deCommon['mfa.code']).fill(totpCode(secret, t.clock.now()))
    await page.getByRole('button', { name: deCommon['mfa.submit'] }).click()
    await page.waitForURL('**/links')

    // The summary's "Backup-Codes" is whole, beside (not under) "Neue Backup-Codes erstellen".
    await page.goto('/account/security')
    await expectHeading(page, 'Sicherheit')
    const row = page
      .getByTestId('security-summary')
      .locator('.summary-row')
      .filter({ hasText: de['accountSecurity.backupCodes'] })
      .filter({ has: page.getByRole('button', { name: deCommon['security.regenerate'] }) })
    await row.waitFor()
    const label = row.locator('.summary-label')
    expect(await label.textContent()).toBe(de['accountSecurity.backupCodes'])
    const labelBox = (await label.boundingBox())!
    const buttonBox = (await row
      .getByRole('button', { name: deCommon['security.regenerate'] })
      .boundingBox())!
    expect(labelBox.x + labelBox.width).toBeLessThanOrEqual(buttonBox.x)
    expect(await label.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true)
    await checkAccessibility(page, 'security summary with two-factor at 390 px (de)')
    await context.close()
  })
})
