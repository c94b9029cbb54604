/**
 * Password recovery in real Chromium against the built server, in English and in
 * German: "Forgot your password?" → the mail at the SMTP stand-in → the reset page → signing in
 * with the new password and the second factor; an unknown address gets the same answer; without
 * SMTP the page says so and the administrator's copyable link does the job; the operator's CLI link
 * (the built `dist/cli.js` on the same data directory); a used or expired link gets a clear page.
 * The forms are driven by keyboard, and every page is checked by axe in both themes.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../test/helpers/smtp-server.ts'
import { loadSignedInCatalogues, translate, type Language } from '../src/i18n/i18n.tsx'
import { checkAccessibility, expectHeading } from './checks.ts'
import { openBrowser, type FileBrowser, startConsoleServer, type ConsoleServer } from './harness.ts'

const CLI_ENTRY = path.resolve(import.meta.dirname, '../../dist/cli.js')
const ADMIN = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const NEW_PASSWORD = { en: 'a fresh passphrase 2027', de: 'ein frisches Kennwort 2027' } as const

let server: ConsoleServer
let browser: FileBrowser
let smtp: SmtpStandIn
let adminToken: string
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-recovery-'))
const serverEnv = {
  DATA_DIR: dataDir,
  JWT_SECRET: randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
}

async function api(
  urlPath: string,
  init: { method?: string; token?: string; body?: unknown } = {},
) {
  const response = await fetch(`${server.baseUrl}${urlPath}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  return {
    status: response.status,
    json: (response.status === 204 ? {} : await response.json()) as Record<string, unknown>,
  }
}

/**
 * A TOTP code for a step after every one this secret has used (the service refuses a step twice).
 */
const lastStep = new Map<string, number>()
async function freshCode(secret: string): Promise<string> {
  for (;;) {
    const now = Date.now()
    const step = Math.floor(now / 30_000)
    // The service accepts one step either side of its clock: the step before too, while the
    // request cannot reach it after the next step has begun.
    const offsets = now % 30_000 < 25_000 ? [-1, 0, 1] : [0, 1]
    for (const offset of offsets) {
      if (step + offset > (lastStep.get(secret) ?? 0)) {
        lastStep.set(secret, step + offset)
        return totpCode(secret, new Date(now), offset)
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 30_000 - (now % 30_000) + 200))
  }
}

interface Person {
  id: string
  email: string
  password: string
  secret: string | null
}

/**
 * A user in `language`, created by the administrator; with `mfa`, enrolled in TOTP through the API.
 */
async function createPerson(label: string, language: Language, mfa: boolean): Promise<Person> {
  const email = `${label}-${randomBytes(3).toString('hex')}@example.com`
  const password = 'an old passphrase 2026'
  const created = await api('/api/admin/users', {
    method: 'POST',
    token: adminToken,
    body: { name: label, email, password },
  })
  expect(created.status).toBe(201)
  const id = created.json.id as string
  expect(
    (await api(`/api/admin/users/${id}`, { method: 'PUT', token: adminToken, body: { language } }))
      .status,
  ).toBe(200)
  let secret: string | null = null
  if (mfa) {
    const { token } = (await api('/api/auth/login', { method: 'POST', body: { email, password } }))
      .json as { token: string }
    const begin = await api('/api/auth/mfa/enroll/begin', {
      method: 'POST',
      token,
      body: { password },
    })
    secret = begin.json.secret as string
    expect(
      (
        await api('/api/auth/mfa/enroll/confirm', {
          method: 'POST',
          token,
          body: { code: await freshCode(secret) },
        })
      ).status,
    ).toBe(200)
  }
  return { id, email, password, secret }
}

async function setSmtp(enabled: boolean): Promise<void> {
  const body = {
    enabled,
    host: smtp.host,
    port: smtp.port,
    from_address: 'no-reply@example.com',
    // A new server and sender take the administrator's proof.
    current_password: ADMIN.password,
  }
  expect(
    (await api('/api/admin/settings/smtp', { method: 'PUT', token: adminToken, body })).status,
  ).toBe(200)
}

async function newContext(language: Language): Promise<BrowserContext> {
  return browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: language === 'de' ? 'de-DE' : 'en-US',
  })
}

/** The link in the newest mail to `to`, once it has arrived (the service mails after answering). */
async function linkMailedTo(to: string, count: number): Promise<{ link: string; text: string }> {
  // Security notices (two-factor turned on, a new sign-in) go to the same address: count the reset
  // mails.
  const resetMails = () =>
    smtp.received
      .filter((m) => m.to.includes(to))
      .map((m) => textOf(m))
      .filter((text) => text.includes('/reset-password?token='))
  await expect.poll(() => resetMails().length, { timeout: 20_000 }).toBe(count)
  const text = resetMails().at(-1)!
  const link = /(http:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(text)
  expect(link, text).not.toBeNull()
  return { link: link![1]!, text }
}

/** Sets the new password on the reset page by keyboard: type, (Space on the revoke box), Enter. */
async function setNewPassword(
  page: Page,
  lang: Language,
  password: string,
  options: { revokeTokens?: boolean } = {},
): Promise<void> {
  const t = (key: string, params?: Record<string, string | number>) => translate(lang, key, params)
  await expectHeading(page, t('reset.title'))
  // The token left the address bar as soon as the page read it.
  expect(new URL(page.url()).search).toBe('')
  await checkAccessibility(page, `reset (${lang})`)
  const field = page.getByLabel(t('field.newPassword'))
  await field.focus()
  await page.keyboard.type(password)
  await expect
    .poll(() => page.getByTestId('password-strength').textContent())
    .toContain(t('strength.label'))
  if (options.revokeTokens) {
    await page.keyboard.press('Tab')
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name))
      .toBe('revoke_api_tokens')
    await page.keyboard.press('Space')
    await field.focus()
  }
  const answered = page.waitForResponse((r) =>
    r.url().endsWith('/api/auth/password-reset/complete'),
  )
  await page.keyboard.press('Enter')
  // The service's answer first, so that a failure says whether it was sent and what came back.
  const answer = await answered
  expect(answer.ok(), `reset: ${answer.status()} ${await answer.text()}`).toBe(true)
  await expectHeading(page, t('reset.doneTitle'))
  await checkAccessibility(page, `reset done (${lang})`)
}

/**
 * Signs in on the page with email and password, then the second factor when the account has one.
 */
async function signIn(page: Page, lang: Language, person: Person, password: string): Promise<void> {
  const t = (key: string) => translate(lang, key)
  await page.goto('/login')
  await expectHeading(page, t('login.title'))
  await page.getByLabel(t('field.email')).fill(person.email)
  await page.getByLabel(t('field.password'), { exact: true }).fill(password)
  await page.getByRole('button', { name: t('login.submit'), exact: true }).click()
  if (person.secret !== null) {
    await page.waitForURL('**/login/mfa**')
    await page.getByLabel(t('mfa.code'), { exact: true }).fill(await freshCode(person.secret))
    await page.getByRole('button', { name: t('mfa.submit') }).click()
  }
  await page.waitForURL(`${server.baseUrl}/links`)
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        ...serverEnv,
        PUBLIC_URL: server.baseUrl,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

beforeAll(async () => {
  // The catalogues load on demand; the expected sentences need every one of them.
  await loadSignedInCatalogues()
  server = await startConsoleServer(serverEnv)
  browser = await openBrowser()
  smtp = await startSmtpStandIn()
  adminToken = (await api('/api/auth/setup', { method: 'POST', body: ADMIN })).json.token as string
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await smtp?.close()
  await server?.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe.each(['en', 'de'] as const)('password recovery in %s', (lang) => {
  const t = (key: string, params?: Record<string, string | number>) => translate(lang, key, params)

  it('forgot → mail → reset → sign in with the new password and the second factor; an unknown address gets the same answer', async () => {
    await setSmtp(true)
    const person = await createPerson(`mfa-${lang}`, lang, true)
    const context = await newContext(lang)
    const page = await context.newPage()
    await page.goto('/login')
    await expectHeading(page, t('login.title'))
    await page.getByRole('link', { name: t('login.forgot') }).click()
    await expectHeading(page, t('forgot.title'))
    await checkAccessibility(page, `forgot (${lang})`)

    const ask = async (email: string) => {
      const field = page.getByLabel(t('field.email'))
      await field.focus()
      await page.keyboard.type(email)
      const answer = page.waitForResponse(
        (r) => r.url().endsWith('/api/auth/password-reset') && r.request().method() === 'POST',
      )
      await page.keyboard.press('Enter')
      const response = await answer
      await expect.poll(() => page.getByTestId('forgot-sent').textContent()).toContain(email)
      return { status: response.status(), body: await response.text() }
    }
    const known = await ask(person.email)
    await checkAccessibility(page, `forgot sent (${lang})`)
    await page.getByRole('button', { name: t('forgot.sent.again') }).click()
    const unknown = await ask(`nobody-${lang}@example.com`)
    expect(unknown).toEqual(known)
    expect(known.status).toBe(202)

    const { link, text } = await linkMailedTo(person.email, 1)
    expect(text).toContain(lang === 'de' ? 'innerhalb von 30 Minuten' : 'within 30 minutes')
    expect(smtp.received.filter((m) => m.to.includes(`nobody-${lang}@example.com`))).toEqual([])

    await page.goto(link)
    await expect.poll(() => page.getByText(t('reset.signOutMfa')).count()).toBe(1)
    await setNewPassword(page, lang, NEW_PASSWORD[lang])
    const done = (await page.getByTestId('reset-done').textContent()) ?? ''
    expect(done).toContain(t('reset.mfaKept'))
    expect(done).toContain(t('reset.sessionsEnded', { count: 1 }))

    // The security mail about the reset follows (the outbox sends it in the background).
    await expect
      .poll(() => smtp.received.filter((m) => m.to.includes(person.email)).map((m) => textOf(m)), {
        timeout: 20_000,
      })
      .toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            lang === 'de' ? 'neu festgelegt' : 'set with a password reset link',
          ),
        ]),
      )

    await signIn(page, lang, person, NEW_PASSWORD[lang])

    // The link is spent: opened again, it gets the clear page, with the way to a new one.
    await page.goto(link)
    await expectHeading(page, t('reset.invalidTitle'))
    expect(await page.getByTestId('reset-invalid').textContent()).toContain(t('reset.invalid'))
    await checkAccessibility(page, `reset invalid (${lang})`)
    await page.getByRole('link', { name: t('reset.askAgain') }).click()
    await expectHeading(page, t('forgot.title'))
    await context.close()
  })

  it('an administrator sets a new password, and with SMTP sends a reset link from the user page; it arrives and works', async () => {
    await setSmtp(true)
    const person = await createPerson(`mailed-${lang}`, lang, false)
    const admin = (
      await api('/api/auth/login', {
        method: 'POST',
        body: { email: ADMIN.email, password: ADMIN.password },
      })
    ).json.token as string
    await api('/api/users/me', { method: 'PATCH', token: admin, body: { language: lang } })
    const context = await newContext(lang)
    const page = await context.newPage()
    await signIn(
      page,
      lang,
      { id: '', email: ADMIN.email, password: ADMIN.password, secret: null },
      ADMIN.password,
    )
    await page.goto(`/admin/users/${person.id}`)
    await expectHeading(page, `mailed-${lang}`)
    const section = page.locator('section[aria-labelledby="password-heading"]')
    // "Set a new password" goes through the re-authentication dialog, as every credential change
    // does.
    const chosen = `chosen by the admin ${lang} 1`
    await section.getByLabel(t('field.newPassword')).fill(chosen)
    await section.getByRole('button', { name: t('admin.user.setPassword') }).click()
    const dialog = page.getByRole('dialog', { name: t('reauth.title') })
    await dialog.getByLabel(t('field.currentPassword')).fill(ADMIN.password)
    await dialog.getByRole('button', { name: t('reauth.submit') }).click()
    await section.getByTestId('password-set').waitFor()
    expect(
      (
        await api('/api/auth/login', {
          method: 'POST',
          body: { email: person.email, password: chosen },
        })
      ).status,
    ).toBe(200)
    const send = section.getByRole('button', { name: t('admin.user.sendReset') })
    await send.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => section.getByTestId('reset-sent').textContent()).toContain(person.email)
    await checkAccessibility(page, `admin reset link mailed (${lang})`)
    const { link, text } = await linkMailedTo(person.email, 1)
    expect(text).toContain(lang === 'de' ? 'innerhalb von 30 Minuten' : 'within 30 minutes')
    const personContext = await newContext(lang)
    const personPage = await personContext.newPage()
    await personPage.goto(link)
    await setNewPassword(personPage, lang, NEW_PASSWORD[lang])
    await signIn(personPage, lang, person, NEW_PASSWORD[lang])
    await personContext.close()
    await context.close()
  })

  it('without SMTP: the page sends the person to an administrator, whose copyable link sets the password; tokens revoked when asked', async () => {
    await setSmtp(false)
    const person = await createPerson(`nomail-${lang}`, lang, lang === 'de')
    const { token: personToken } = (
      await api('/api/auth/login', {
        method: 'POST',
        body: { email: person.email, password: person.password },
      })
    ).json as {
      token?: string
    }
    // A person with MFA gets an mfa_token instead of a session; an API token needs a session, so
    // only the English run has one.
    let apiToken: string | null = null
    if (personToken !== undefined)
      apiToken = (
        await api('/api/tokens', {
          method: 'POST',
          token: personToken,
          body: { name: 'ci', permissions: ['links:read'] },
        })
      ).json.token as string

    const personContext = await newContext(lang)
    const personPage = await personContext.newPage()
    await personPage.goto('/forgot-password')
    await expectHeading(personPage, t('forgot.title'))
    expect(await personPage.getByTestId('forgot-no-mail').textContent()).toContain(
      t('forgot.noMail.title'),
    )
    expect(await personPage.locator('input[name="email"]').count()).toBe(0)
    await checkAccessibility(personPage, `forgot without mail (${lang})`)

    // The administrator, in the same language, creates the link behind the re-authentication
    // dialog.
    const admin = await api('/api/auth/login', {
      method: 'POST',
      body: { email: ADMIN.email, password: ADMIN.password },
    })
    expect(admin.status).toBe(200)
    const adminContext = await newContext(lang)
    const adminPage = await adminContext.newPage()
    await api('/api/users/me', {
      method: 'PATCH',
      token: admin.json.token as string,
      body: { language: lang },
    })
    await adminPage.goto('/login')
    await adminPage.getByLabel(translate(lang, 'field.email')).fill(ADMIN.email)
    await adminPage
      .getByLabel(translate(lang, 'field.password'), { exact: true })
      .fill(ADMIN.password)
    await adminPage.getByRole('button', { name: t('login.submit'), exact: true }).click()
    await adminPage.waitForURL(`${server.baseUrl}/links`)
    await adminPage.goto(`/admin/users/${person.id}`)
    await expectHeading(adminPage, `nomail-${lang}`)
    const section = adminPage.locator('section[aria-labelledby="password-heading"]')
    await expect.poll(() => section.getByTestId('reset-no-mail').count()).toBe(1)
    expect(await section.getByRole('button', { name: t('admin.user.sendReset') }).count()).toBe(0)
    await checkAccessibility(adminPage, `admin user password section (${lang})`)
    await section.getByRole('button', { name: t('admin.user.createLink') }).click()
    const dialog = adminPage.getByRole('dialog', { name: t('reauth.title') })
    await dialog.getByLabel(t('field.currentPassword')).fill(ADMIN.password)
    await dialog.getByRole('button', { name: t('reauth.submit') }).click()
    const shown = section.getByTestId('reset-link')
    await shown.waitFor()
    const link = ((await shown.textContent()) ?? '').trim()
    expect(link).toMatch(/\/reset-password\?token=[A-Za-z0-9_-]{43}$/)
    await checkAccessibility(adminPage, `admin reset link shown (${lang})`)
    // Shown once: after a reload the page offers a new link, not this one.
    await adminPage.reload()
    await expectHeading(adminPage, `nomail-${lang}`)
    expect(await adminPage.getByText(link).count()).toBe(0)

    await personPage.goto(link)
    await setNewPassword(personPage, lang, NEW_PASSWORD[lang], { revokeTokens: apiToken !== null })
    if (apiToken !== null) {
      expect(await personPage.getByTestId('reset-done').textContent()).toContain(
        t('reset.tokensRevoked', { count: 1 }),
      )
      expect((await api('/api/users/me', { token: apiToken })).status).toBe(401)
    }
    await signIn(personPage, lang, person, NEW_PASSWORD[lang])
    await personContext.close()
    await adminContext.close()
  })

  it("the operator's CLI link sets the password; an expired link gets the clear page", async () => {
    const person = await createPerson(`cli-${lang}`, lang, false)
    const printed = await runCli(['reset-password', person.email])
    expect(printed.code, printed.stderr).toBe(0)
    const link = /(http:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]{43})/.exec(printed.stdout)![1]!
    expect(link.startsWith(server.baseUrl)).toBe(true)

    const context = await newContext(lang)
    const page = await context.newPage()
    await page.goto(link)
    await expect.poll(() => page.getByText(t('reset.signOut'), { exact: true }).count()).toBe(1)
    await setNewPassword(page, lang, NEW_PASSWORD[lang])
    await signIn(page, lang, person, NEW_PASSWORD[lang])

    // An expired link: a second CLI link whose validity has run out (its expiry moved into the
    // past).
    const second = await runCli(['reset-password', person.email])
    const expired = /(http:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]{43})/.exec(
      second.stdout,
    )![1]!
    const database = new DatabaseSync(path.join(dataDir, 'switchboard.db'))
    try {
      // The server may be writing (its session, the audit log): wait for its lock.
      database.exec('pragma busy_timeout = 5000')
      database
        .prepare(
          "update password_resets set expires_at = '2000-01-01T00:00:00.000Z' where used_at is null",
        )
        .run()
    } finally {
      database.close()
    }
    const fresh = await context.newPage()
    await fresh.goto(expired)
    await expectHeading(fresh, t('reset.invalidTitle'))
    expect(await fresh.getByTestId('reset-invalid').textContent()).toContain(t('reset.invalidNext'))
    await context.close()
  })
})
