/**
 * The administration console in real Chromium against the built server: users
 * (create, disable and enable behind the re-authentication dialog, reset two-factor), teams and
 * members, SMTP (its server behind the re-authentication dialog) with a test email to the
 * in-process SMTP server, AI with the provider's model list, an OIDC provider (added behind the
 * same dialog) used for a sign-in in a fresh context, the audit log's filters and its export; a
 * non-administrator finds none of it. Every admin page is checked by axe in both themes and both
 * languages, and no response the browser receives carries a write-only secret.
 */
import fs from 'node:fs'
import type { BrowserContext, Page, Request, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../test/helpers/openai-stand-in.ts'
import {
  OIDC_CLIENT_ID,
  startOidcProvider,
  type OidcProviderStandIn,
} from '../../test/helpers/oidc-provider.ts'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import {
  AI_API_KEY,
  findLeak,
  OIDC_CLIENT_SECRET,
  SMTP_PASSWORD,
  SMTP_USERNAME,
} from '../../test/helpers/secret-scan.ts'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../test/helpers/smtp-server.ts'
import {
  openBrowser,
  recordActivity,
  type FileBrowser,
  startConsoleServer,
  type ConsoleServer,
} from './harness.ts'
import { checkAccessibility as checkAxe, expectHeading } from './checks.ts'

const ADMIN = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const LIN = { name: 'Lin Wei', email: 'lin@example.com', password: 'lattice-basis-2024' }
const MIA = { name: 'Mia Example', email: 'mia@example.com', password: 'mia-passphrase-2026' }
const PROVIDER_KEY = 'corp'
const SECRETS = [SMTP_PASSWORD, AI_API_KEY, OIDC_CLIENT_SECRET]

let server: ConsoleServer
let browser: FileBrowser
let oidc: OidcProviderStandIn
let smtp: SmtpStandIn
let openai: OpenAiStandIn
let adminJwt: string
/** Every response body and header set the browser received, scanned for the secrets at the end. */
const seen: string[] = []
const axeChecked: string[] = []
const checkAccessibility = (page: Page, name: string) =>
  checkAxe(page, name, (pass) => axeChecked.push(pass))

async function newContext(locale = 'en-US'): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale,
    acceptDownloads: true,
  })
  context.on('response', (response: Response) => {
    void response
      .text()
      .then((body) => seen.push(`${response.url()} ${JSON.stringify(response.headers())}\n${body}`))
      .catch(() => undefined)
  })
  return context
}

async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto('/login')
  await page.locator('input[name="email"]').fill(who.email)
  await page.locator('input[name="password"]').fill(who.password)
  await page.locator('button[type="submit"]').click()
  await page.waitForURL(`${server.baseUrl}/links`)
}

async function api(
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<Response_> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  return {
    status: response.status,
    json: response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>),
  }
}
interface Response_ {
  status: number
  json: Record<string, unknown>
}

/** Answers the re-authentication dialog with the administrator's password. */
async function reauthenticate(page: Page, password = ADMIN.password): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Confirm it is you' })
  await dialog.getByLabel('Current password').fill(password)
  await dialog.getByRole('button', { name: 'Confirm and continue' }).click()
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
  openai = await startOpenAiStandIn(AI_API_KEY)
  openai.models = [{ id: 'gpt-test-mini', owned_by: 'stand-in' }, { id: 'gpt-test-large' }]
  const setup = await api('/api/auth/setup', { method: 'POST', body: ADMIN })
  adminJwt = setup.json.token as string
  expect(
    (await api('/api/admin/users', { method: 'POST', token: adminJwt, body: LIN })).status,
  ).toBe(201)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await oidc?.close()
  await smtp?.close()
  await openai?.close()
  await server?.stop()
  if (axeChecked.length > 0)
    console.log(
      `axe: ${axeChecked.length} admin page views checked, none with a serious or critical violation`,
    )
})

describe('the administration console', () => {
  let context: BrowserContext
  let page: Page
  let miaId = ''

  it('shows the Administration group to administrators and opens Users from /admin', async () => {
    context = await newContext()
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: server.baseUrl,
    })
    page = await context.newPage()
    const lately = recordActivity(page)
    await signIn(page, ADMIN)
    const nav = page.getByRole('navigation', { name: 'Main' })
    // The first page of a new browser on a loaded machine: its scripts and the account may take
    // a while; a failure says what the page held meanwhile.
    for (const name of ['Users', 'Teams', 'Settings', 'Identity providers', 'Audit log'])
      await expect
        .poll(() => nav.getByRole('link', { name }).count(), { timeout: 30_000 })
        .toBe(1)
        .catch(async (error: unknown) => {
          const shown = await page.evaluate(() => ({
            nav: document.querySelector('#side-nav')?.textContent ?? '(no navigation)',
            hidden: [...document.querySelectorAll('[aria-hidden="true"], [inert]')].length,
            dialogs: [...document.querySelectorAll('[role="dialog"], [role="alertdialog"]')].map(
              (dialog) => dialog.textContent?.slice(0, 120),
            ),
          }))
          throw new Error(
            `the link ${name} in the navigation: ${JSON.stringify(shown)}; ${lately()}`,
            { cause: error },
          )
        })
    await page.goto('/admin')
    await page.waitForURL('**/admin/users')
    await expectHeading(page, 'Users')
    await page.getByTestId('users').locator('tbody tr').first().waitFor()
    await checkAccessibility(page, 'users')
  })

  it('creates a user, finds them by search, and shows the empty state for no match', async () => {
    await page.getByRole('button', { name: 'Create user' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Name').fill(MIA.name)
    await dialog.getByLabel('Email address').fill(MIA.email)
    await dialog.getByLabel('Password (optional)').fill(MIA.password)
    await checkAccessibility(page, 'create user dialog')
    await dialog.getByRole('button', { name: 'Create user' }).click()
    await expectHeading(page, MIA.name)
    miaId = new URL(page.url()).pathname.split('/').pop()!
    await checkAccessibility(page, 'user')

    await page.goto('/admin/users')
    await page.getByLabel('Search by name or email address').fill('mia@')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.waitForURL('**/admin/users?q=mia%40')
    await expect.poll(() => page.getByTestId('users').locator('tbody tr').count()).toBe(1)
    await page.goto('/admin/users?q=nobody-like-that')
    await expect
      .poll(() => page.getByTestId('users-empty').textContent())
      .toContain('nobody-like-that')
  })

  it('creates a user without a password and hands over the welcome link, which sets it', async () => {
    await page.goto('/admin/users')
    await page.getByRole('button', { name: 'Create user' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Name').fill('Noor Welcome')
    await dialog.getByLabel('Email address').fill('noor@example.com')
    await dialog.getByRole('button', { name: 'Create user' }).click()
    // No mail on the instance yet: the link to set a password is shown to pass on.
    await dialog.getByRole('heading', { name: 'Noor Welcome can now set a password' }).waitFor()
    await dialog
      .getByText('This instance sends no mail, so noor@example.com got no welcome mail.', {
        exact: false,
      })
      .waitFor()
    const link = await dialog.getByLabel('Link to set a password').inputValue()
    expect(link).toMatch(/\/reset-password\?token=[A-Za-z0-9_-]{43}$/)
    await checkAccessibility(page, 'create user, welcome link')
    await dialog.getByRole('button', { name: 'Open user' }).click()
    await expectHeading(page, 'Noor Welcome')

    const german = await newContext('de-DE')
    const noor = await german.newPage()
    await noor.goto(link)
    await expectHeading(noor, 'Passwort festlegen')
    await noor.getByText('Willkommen bei Switchboard.', { exact: false }).waitFor()
    await german.close()
  })

  it('disables and re-enables the user behind the re-authentication dialog, which keeps what was typed', async () => {
    await page.goto(`/admin/users/${miaId}`)
    await expectHeading(page, MIA.name)

    // A new email address needs proof: the dialog asks; cancelling keeps what was typed.
    const details = page.getByRole('region', { name: 'Name, email address and role' })
    await details.getByLabel('Email address').fill('mia@new.example')
    await details.getByRole('button', { name: 'Save changes' }).click()
    await page.getByRole('dialog', { name: 'Confirm it is you' }).waitFor()
    await checkAccessibility(page, 're-authentication dialog')
    await page
      .getByRole('dialog', { name: 'Confirm it is you' })
      .getByRole('button', { name: 'Cancel' })
      .click()
    expect(await details.getByLabel('Email address').inputValue()).toBe('mia@new.example')
    // A wrong password is said in the dialog, which stays open for another try.
    await details.getByRole('button', { name: 'Save changes' }).click()
    await reauthenticate(page, 'not-my-password')
    await expect
      .poll(() =>
        page
          .getByRole('dialog', { name: 'Confirm it is you' })
          .getByText('The password is incorrect.')
          .count(),
      )
      .toBe(1)
    await reauthenticate(page)
    await expect
      .poll(() => page.getByText('mia@new.example', { exact: false }).count())
      .toBeGreaterThan(0)
    await expect
      .poll(async () => (await api(`/api/admin/users/${miaId}`, { token: adminJwt })).json.email)
      .toBe('mia@new.example')
    MIA.email = 'mia@new.example'

    await page.getByRole('button', { name: 'Disable account' }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'Disable account' }).click()
    await reauthenticate(page)
    await expect.poll(() => page.getByTestId('user-status').textContent()).toBe('Disabled')
    expect(
      (
        await api('/api/auth/login', {
          method: 'POST',
          body: { email: MIA.email, password: MIA.password },
        })
      ).status,
    ).toBe(401)

    await page.getByRole('button', { name: 'Enable account' }).click()
    await reauthenticate(page)
    await expect.poll(() => page.getByTestId('user-status').textContent()).toBe('Active')
    expect(
      (
        await api('/api/auth/login', {
          method: 'POST',
          body: { email: MIA.email, password: MIA.password },
        })
      ).status,
    ).toBe(200)
  })

  it("resets the user's two-factor authentication", async () => {
    const login = await api('/api/auth/login', {
      method: 'POST',
      body: { email: MIA.email, password: MIA.password },
    })
    const miaJwt = login.json.token as string
    const begun = await api('/api/auth/mfa/enroll/begin', {
      method: 'POST',
      token: miaJwt,
      body: { password: MIA.password },
    })
    const confirmed = await api('/api/auth/mfa/enroll/confirm', {
      method: 'POST',
      token: miaJwt,
      body: { code: totpCode(begun.json.secret as string, new Date()) },
    })
    expect(confirmed.status).toBe(200)

    await page.reload()
    await expect.poll(() => page.getByTestId('user-mfa').textContent()).toBe('On')
    await page.getByRole('button', { name: 'Reset two-factor authentication' }).click()
    await page
      .getByRole('alertdialog')
      .getByRole('button', { name: 'Reset two-factor authentication' })
      .click()
    await reauthenticate(page)
    await expect.poll(() => page.getByTestId('user-mfa').textContent()).toBe('Off')
    expect(
      (
        await api('/api/auth/login', {
          method: 'POST',
          body: { email: MIA.email, password: MIA.password },
        })
      ).json.mfa_required,
    ).toBeUndefined()
  })

  it('deletes a user only after their email is typed, by keyboard', async () => {
    const temp = await api('/api/admin/users', {
      method: 'POST',
      token: adminJwt,
      body: { name: 'Temp Worker', email: 'temp@example.com' },
    })
    await page.goto(`/admin/users/${temp.json.id as string}`)
    await expectHeading(page, 'Temp Worker')
    await page.getByRole('button', { name: 'Delete user' }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('alertdialog', { name: 'Delete the account of Temp Worker?' })
    await dialog.getByLabel('Type temp@example.com to confirm').waitFor()
    await checkAccessibility(page, 'delete user dialog')
    await page.keyboard.type('temp@example')
    await page.keyboard.press('Enter')
    await expect
      .poll(() => dialog.getByText('That is not the email address of this account.').count())
      .toBe(1)
    await page.keyboard.type('.com')
    await page.keyboard.press('Enter')
    await expectHeading(page, 'Users')
    expect(
      (await api(`/api/admin/users/${temp.json.id as string}`, { token: adminJwt })).status,
    ).toBe(404)
  })

  it("says on the administrator's own account why role, access and deletion are not offered", async () => {
    const me = (await api('/api/users/me', { token: adminJwt })).json
    await page.goto(`/admin/users/${me.id as string}`)
    await expectHeading(page, ADMIN.name)
    expect(await page.getByLabel('This user is an administrator').isDisabled()).toBe(true)
    await expect.poll(() => page.getByText('You cannot disable your own account').count()).toBe(1)
    // Their own email goes through their profile: the API's 409 becomes a sentence with the way
    // there.
    const details = page.getByRole('region', { name: 'Name, email address and role' })
    await details.getByLabel('Email address').fill('ada@new.example')
    await details.getByRole('button', { name: 'Save changes' }).click()
    await details.getByRole('link', { name: 'Go to your profile' }).waitFor()
    await checkAccessibility(page, 'own user page')
  })

  it('creates a team and adds members by email and from the user picker', async () => {
    await page.goto('/admin/teams')
    await expectHeading(page, 'Teams')
    await expect.poll(() => page.getByText('There are no teams yet.').count()).toBe(1)
    await checkAccessibility(page, 'teams (empty)')
    await page.getByLabel('Name').fill('Platform')
    await page.getByRole('button', { name: 'Create team' }).click()
    await page.getByRole('link', { name: 'Platform' }).click()
    await expectHeading(page, 'Platform')

    const byEmail = page.getByRole('form', { name: 'Add by email address' })
    await byEmail.getByLabel('Email address').fill(LIN.email)
    await byEmail.getByRole('button', { name: 'Add member' }).click()
    await expect.poll(() => page.getByTestId('team-members').getByText(LIN.name).count()).toBe(1)

    const picker = page.getByRole('form', { name: 'Choose a user' })
    await picker.getByRole('combobox', { name: 'User' }).fill('Mia')
    await page.getByRole('option', { name: /Mia Example/ }).click()
    await picker.getByRole('button', { name: 'Add member' }).click()
    await expect.poll(() => page.getByTestId('team-members').getByText(MIA.name).count()).toBe(1)
    await expect.poll(() => page.getByRole('heading', { name: '2 members' }).count()).toBe(1)
    await checkAccessibility(page, 'team')

    // The way back is a link, not a button; the heading that took focus draws no box.
    const back = page.getByRole('link', { name: 'All teams' })
    expect(await back.getAttribute('class')).toMatch(/^back-link\b/)
    const heading = page.getByRole('heading', { level: 1 })
    expect(await heading.evaluate((h1) => getComputedStyle(h1).outlineStyle)).toBe('none')
    await back.click()
    await expectHeading(page, 'Teams')
    const columns = await page.getByTestId('teams').locator('th').allTextContents()
    expect(columns).toContain('Description')
    expect(columns.join(' ')).not.toContain('optional')
  })

  it('keeps the side navigation in view on a long page', async () => {
    await page.setViewportSize({ width: 1280, height: 400 })
    await page.goto('/admin/audit')
    await expectHeading(page, 'Audit log')
    // Long: the events so far (users, the team and its members) make the page more than twice the
    // window's height once their rows are in.
    await page.getByTestId('audit').locator('tbody tr').first().waitFor()
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight))
      .toBeGreaterThan(400)
    await expect
      .poll(async () => {
        await page.mouse.wheel(0, 4000)
        return page.evaluate(() => window.scrollY)
      })
      .toBeGreaterThan(400)
    // Without stickiness the navigation would now sit above the window; it stays below the top bar.
    const nav = page.getByRole('navigation', { name: 'Main' })
    const box = await nav.boundingBox()
    // Below the 56-px top bar, give or take a sub-pixel of rounding.
    expect(box?.y).toBeGreaterThan(55.5)
    expect(box?.y).toBeLessThan(400)
    // An address is one token: it never breaks across lines.
    const address = page.locator('td.ip').first()
    expect(await address.evaluate((cell) => getComputedStyle(cell).whiteSpace)).toBe('nowrap')
    await page.setViewportSize({ width: 1280, height: 800 })
  })

  it('saves SMTP settings, sends a test email to the SMTP server, and never shows the password', async () => {
    await page.goto('/admin/settings')
    await expectHeading(page, 'Settings')
    const form = page.getByRole('form', { name: 'Outgoing email (SMTP)' })
    await form.getByLabel('Send email').check()
    await form.getByLabel('Server address').fill(smtp.host)
    await form.getByLabel('Port').fill(String(smtp.port))
    await form.getByLabel('User name (optional)').fill(SMTP_USERNAME)
    await form.getByLabel('Password', { exact: true }).fill(SMTP_PASSWORD)
    await form.getByLabel('Allow signing in without TLS to a server on this machine').check()
    await form.getByLabel('Sender address').fill('no-reply@example.com')
    const saves: Record<string, unknown>[] = []
    const recordSave = (request: Request) => {
      if (request.method() === 'PUT' && request.url().endsWith('/api/admin/settings/smtp'))
        saves.push(request.postDataJSON() as Record<string, unknown>)
    }
    page.on('request', recordSave)
    await form.getByRole('button', { name: 'Save email settings' }).click()
    // A new server and sender hand whoever sets them the sign-in mail: the administrator's proof.
    await page.getByRole('dialog', { name: 'Confirm it is you' }).waitFor()
    await checkAccessibility(page, 'settings, re-authentication dialog')
    await reauthenticate(page)
    await expect
      .poll(() => page.getByTestId('password-state').textContent())
      .toContain('A value is stored.')
    page.off('request', recordSave)
    // The dialog is drawn inside the SMTP form in React's tree, which passes a submit up to it:
    // the settings go once without the proof (asked for), once with it — never a third time.
    expect(saves.map((body) => 'current_password' in body)).toEqual([false, true])
    expect(await form.getByLabel('Password', { exact: true }).inputValue()).toBe('')
    // Saved is said where one looks, and focus stays in the section (the form was redrawn).
    const saved = page.getByTestId('smtp-saved')
    expect(await saved.textContent()).toBe('Email settings saved.')
    expect(await saved.isVisible()).toBe(true)
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('smtp-saved')

    await page.getByRole('button', { name: 'Send test email' }).click()
    await expect
      .poll(() => page.getByTestId('smtp-test-result').textContent(), { timeout: 20_000 })
      .toContain('The server accepted the test email to ada@example.com')
    const mail = smtp.received.at(-1)!
    expect(mail.to).toContain(ADMIN.email)
    expect(textOf(mail).length).toBeGreaterThan(0)
    await checkAccessibility(page, 'settings')
  })

  it('saves the AI provider with a write-only key and lists the models the provider answers', async () => {
    const form = page.getByRole('form', { name: 'AI suggestions' })
    await form.getByLabel('API base URL').fill(openai.baseUrl)
    await form.getByLabel('API key').fill(AI_API_KEY)
    await form.getByRole('button', { name: 'Save AI settings' }).click()
    await expect
      .poll(() => page.getByTestId('api_key-state').textContent())
      .toContain('A value is stored.')
    await form.getByRole('button', { name: 'Load models from the provider' }).click()
    await expect.poll(() => form.getByText('The provider offers 2 models.').count()).toBe(1)
    await form.getByLabel('Model').fill('gpt-test-mini')
    await form.getByLabel('Offer AI suggestions').check()
    await form.getByRole('button', { name: 'Save AI settings' }).click()
    await expect
      .poll(() => page.getByTestId('ai-flags').textContent())
      .toContain('Available to users.')
    expect(openai.calls.every((call) => call.authorization === `Bearer ${AI_API_KEY}`)).toBe(true)
  })

  it('adds an OIDC provider with the callback URL to copy, and a fresh browser signs in with it', async () => {
    await page.goto('/admin/providers')
    await expectHeading(page, 'Identity providers')
    await checkAccessibility(page, 'identity providers (empty)')
    await page.getByRole('link', { name: 'Add identity provider' }).click()
    await expectHeading(page, 'Add identity provider')
    await page.getByLabel('Name').fill('Corp ID')
    await page.getByLabel('Key').fill(PROVIDER_KEY)
    await page.getByLabel('Issuer URL').fill(oidc.issuer)
    await page.getByLabel('Client ID').fill(OIDC_CLIENT_ID)
    await page.getByLabel('Client secret').fill(OIDC_CLIENT_SECRET)
    await page.getByLabel('Create accounts for new people').check()
    await checkAccessibility(page, 'new identity provider')
    await page.locator('form').getByRole('button', { name: 'Add identity provider' }).click()
    // A provider signs people in: the administrator's own proof, asked in the dialog.
    await reauthenticate(page)
    await expectHeading(page, 'Corp ID')
    const callback = `${server.baseUrl}/api/auth/oidc/${PROVIDER_KEY}/callback`
    expect(await page.getByTestId('callback-url').textContent()).toBe(callback)
    await page.getByRole('button', { name: 'Copy callback URL' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(callback)
    await expect
      .poll(() => page.getByTestId('client_secret-state').textContent())
      .toContain('A value is stored.')
    await checkAccessibility(page, 'identity provider')

    oidc.accounts.set('kim', { email: 'kim@example.com', email_verified: true, name: 'Kim Park' })
    oidc.loginAs = 'kim'
    const fresh = await newContext()
    const freshPage = await fresh.newPage()
    await freshPage.goto('/login')
    await freshPage.getByRole('link', { name: 'Sign in with Corp ID' }).click()
    await freshPage.waitForURL(`${server.baseUrl}/links`)
    await expectHeading(freshPage, 'Links')
    await fresh.close()
  })

  it('filters the audit log in the query string and downloads the filtered view as CSV and JSON Lines', async () => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.goto('/admin/audit')
    await expectHeading(page, 'Audit log')
    const rows = page.getByTestId('audit').locator('tbody tr')
    await rows.first().waitFor()
    // The downloads are one control: the first event stays above the fold.
    expect((await rows.first().boundingBox())!.y).toBeLessThan(800)
    // A time, an action code, an address and a person's email are each on one line (a sentence,
    // such as "Nobody signed in", may wrap).
    const broken = await rows.evaluateAll((all) =>
      all.flatMap((row) =>
        [0, 1, 2, 4].flatMap((column) => {
          const cell = row.children[column]!
          const text = (cell.textContent ?? '').trim()
          if (column === 1 && /\s/.test(text)) return []
          const range = document.createRange()
          range.selectNodeContents(cell)
          const tops = [...range.getClientRects()].map((rect) => rect.top).sort((a, b) => a - b)
          const lines = tops.filter((top, i) => i === 0 || top - tops[i - 1]! > 4).length
          return lines > 1 ? [`${column}: ${text} (${lines} lines)`] : []
        }),
      ),
    )
    expect(broken).toEqual([])
    // The details are words: no field names, no ids, no codes joined with "+".
    const facts = page.getByTestId('audit').locator('.audit-facts > div')
    const texts = await facts.allTextContents()
    expect(texts.length).toBeGreaterThan(0)
    for (const text of texts) {
      expect(text).not.toMatch(/[a-z]+_[a-z]+/)
      expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/)
      expect(text).not.toContain('+')
    }
    expect(
      await facts.filter({ hasText: 'Has a password' }).first().locator('dd').textContent(),
    ).toMatch(/^(yes|no)$/)
    expect(
      await facts
        .filter({ hasText: 'Method' })
        .locator('dd', { hasText: /^password$/ })
        .count(),
    ).toBeGreaterThan(0)
    await checkAccessibility(page, 'audit log')
    const openDownloads = async () => {
      const menu = page.getByTestId('audit-downloads')
      if (!(await menu.evaluate((details) => (details as HTMLDetailsElement).open)))
        await menu.locator('summary').click()
    }
    await openDownloads()
    await checkAccessibility(page, 'audit log, downloads open')
    await page.getByLabel('Action').fill('admin.user_disable')
    // The action is a picker; its list closes before the rest of the form is used.
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL('**/admin/audit?action=admin.user_disable')
    await expect.poll(() => page.getByTestId('audit').locator('tbody tr').count()).toBe(1)
    expect(await page.getByTestId('audit').locator('tbody tr td').nth(2).textContent()).toBe(
      'admin.user_disable',
    )

    await openDownloads()
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ])
    expect(csv.suggestedFilename()).toMatch(/^switchboard-audit-.*\.csv$/)
    const lines = fs
      .readFileSync(await csv.path(), 'utf8')
      .trim()
      .split('\r\n')
    expect(lines[0]).toBe('id,at,actor_id,actor_email,action,target_type,target_id,ip,metadata')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain(`"${ADMIN.email}","admin.user_disable","user","${miaId}"`)

    // A time window that ends before anything happened selects nothing, as the page says.
    // The date field (ui/date-time-field.tsx) takes its segments typed in the console's order (en:
    // m/d/y).
    await page.locator('[data-field="until"] [role="spinbutton"]').first().click()
    await page.keyboard.type('010120201200A')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await expect.poll(() => page.getByTestId('audit-empty').count()).toBe(1)
    await page.getByRole('button', { name: 'Clear filters' }).click()
    // The next filter is typed at once, while the cleared list may still be loading: the form
    // empties at the click and is not rebuilt when its own navigation lands, so nothing typed is
    // dropped.
    expect(await page.getByLabel('Action').inputValue()).toBe('')
    await page.getByLabel('Action').fill('team.member_add')
    // The action is a picker; its list closes before the rest of the form is used.
    await page.keyboard.press('Escape')
    // The field is marked: a form rebuilt when its navigation lands would come back without the
    // mark.
    await page.getByLabel('Action').evaluate((input) => input.setAttribute('data-kept', 'yes'))
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL('**/admin/audit?action=team.member_add')
    await expect.poll(() => page.getByTestId('audit').locator('tbody tr').count()).toBe(2)
    expect(await page.getByLabel('Action').inputValue()).toBe('team.member_add')
    expect(await page.getByLabel('Action').getAttribute('data-kept')).toBe('yes')
    // Back: the address moved by someone else (the browser), so the form shows its filters again.
    await page.goBack()
    await page.waitForURL((url) => url.pathname === '/admin/audit' && url.search === '')
    await expect.poll(() => page.getByLabel('Action').inputValue()).toBe('')
    await page.goForward()
    await expect.poll(() => page.getByLabel('Action').inputValue()).toBe('team.member_add')
    await expect.poll(() => page.getByTestId('audit').locator('tbody tr').count()).toBe(2)
    await openDownloads()
    const [jsonl] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download JSON Lines' }).click(),
    ])
    const events = fs
      .readFileSync(await jsonl.path(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; target_type: string })
    expect(events.map((event) => event.action)).toEqual(['team.member_add', 'team.member_add'])
  })

  it('shows every admin page in German without a serious accessibility violation', async () => {
    expect(
      (await api('/api/users/me', { method: 'PATCH', token: adminJwt, body: { language: 'de' } }))
        .status,
    ).toBe(200)
    const german = await newContext('de-DE')
    const dePage = await german.newPage()
    await signIn(dePage, ADMIN)
    const pages: [string, string][] = [
      ['/admin/users', 'Benutzer'],
      [`/admin/users/${miaId}`, MIA.name],
      ['/admin/teams', 'Teams'],
      ['/admin/settings', 'Einstellungen'],
      ['/admin/providers', 'Identitätsanbieter'],
      ['/admin/providers/new', 'Identitätsanbieter hinzufügen'],
      ['/admin/audit', 'Audit-Protokoll'],
    ]
    for (const [path, title] of pages) {
      await dePage.goto(path)
      await expectHeading(dePage, title)
      await dePage.waitForLoadState('networkidle')
      await checkAccessibility(dePage, `${path} (de)`)
    }
    // The audit log's details in German words.
    const deFacts = dePage.getByTestId('audit').locator('.audit-facts > div')
    expect(
      await deFacts
        .filter({ hasText: 'Methode' })
        .locator('dd', { hasText: /^Passwort$/ })
        .count(),
    ).toBeGreaterThan(0)
    expect(
      await deFacts.filter({ hasText: 'Hat ein Passwort' }).first().locator('dd').textContent(),
    ).toMatch(/^(ja|nein)$/)
    await german.close()
    await api('/api/users/me', { method: 'PATCH', token: adminJwt, body: { language: 'en' } })
  })

  it('hides the administration from a non-administrator and forbids its URLs', async () => {
    const member = await newContext()
    const memberPage = await member.newPage()
    await signIn(memberPage, LIN)
    await expect
      .poll(() =>
        memberPage
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Profile' })
          .count(),
      )
      .toBe(1)
    expect(
      await memberPage
        .getByRole('navigation', { name: 'Main' })
        .getByText('Administration')
        .count(),
    ).toBe(0)
    for (const path of [
      '/admin',
      '/admin/users',
      `/admin/users/${miaId}`,
      '/admin/teams',
      '/admin/settings',
      '/admin/providers',
      '/admin/audit',
    ]) {
      await memberPage.goto(path)
      await expectHeading(memberPage, 'Not allowed')
    }
    await member.close()
  })

  it('never sent a write-only secret to the browser', async () => {
    await context.close()
    expect(seen.length).toBeGreaterThan(50)
    for (const text of seen) expect(findLeak(text, SECRETS), text.slice(0, 200)).toBeNull()
  })
})
