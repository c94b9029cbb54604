/**
 * `npm run screenshots`: every console page in light and dark, English and German, at 1280×800,
 * and the sign-in and security pages also at 390×844, into docs/screenshots/. Runs the built
 * server on a throwaway SQLite directory and Debian's Chromium. Secrets on screen (the TOTP key,
 * its QR code, tokens) are masked: a secret never goes into a picture that is committed.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser, startConsoleServer, type ConsoleServer } from './harness.ts'

const OUT = path.resolve(import.meta.dirname, '../../docs/screenshots')
const ADMIN = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const MEMBER = { name: 'Grace Hopper', email: 'grace@example.com', password: 'compiler-a0-1952' }
const COMBOS = [
  { language: 'en', locale: 'en-GB', theme: 'light' },
  { language: 'en', locale: 'en-GB', theme: 'dark' },
  { language: 'de', locale: 'de-DE', theme: 'light' },
  { language: 'de', locale: 'de-DE', theme: 'dark' },
] as const
type Combo = (typeof COMBOS)[number]

const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

let server: ConsoleServer
let browser: Browser
const written: string[] = []

async function api(pathname: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<Record<string, string>> {
  const response = await fetch(`${server.baseUrl}${pathname}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${pathname}: ${response.status} ${await response.text()}`)
  return response.status === 204 ? {} : ((await response.json()) as Record<string, string>)
}

async function context(combo: Combo, viewport = DESKTOP): Promise<BrowserContext> {
  return browser.newContext({ baseURL: server.baseUrl, viewport, locale: combo.locale, colorScheme: combo.theme, reducedMotion: 'reduce' })
}

async function settle(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor()
  await page.waitForLoadState('networkidle')
  await page.waitForTimeout(150)
}

async function shoot(page: Page, name: string, combo: Combo, suffix = ''): Promise<void> {
  await settle(page)
  const file = path.join(OUT, `${name}${suffix}-${combo.language}-${combo.theme}.png`)
  const secrets = page.locator('[data-testid="totp-secret"], [data-testid="new-token"], [data-testid="backup-codes"] code, img.qr')
  await page.screenshot({ path: file, fullPage: false, mask: [secrets], maskColor: '#8a93a3', animations: 'disabled' })
  written.push(path.relative(process.cwd(), file))
}

async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto('/login')
  await page.locator('input[name="email"]').fill(who.email)
  await page.locator('input[name="password"]').fill(who.password)
  await page.locator('button[type="submit"]').click()
  await page.waitForURL(`${server.baseUrl}/`)
}

// ---- Administration (issue 13, point 5) -------------------------------------------------------

interface AdminData {
  memberId: string
  teamId: string
  providerId: string
}

/** A team with members, an identity provider, SMTP and a generic setting, so the pages show content. */
async function arrangeAdminPages(jwt: string, memberId: string): Promise<AdminData> {
  const team = await api('/api/admin/teams', {
    method: 'POST',
    token: jwt,
    body: { name: 'Platform', description: 'Runs the shared infrastructure' },
  })
  await api(`/api/admin/teams/${team.id}/members`, { method: 'POST', token: jwt, body: { user_id: memberId } })
  await api(`/api/admin/teams/${team.id}/members`, { method: 'POST', token: jwt, body: { email: ADMIN.email } })
  await api('/api/admin/teams', { method: 'POST', token: jwt, body: { name: 'Support' } })
  const provider = await api('/api/oidc-providers', {
    method: 'POST',
    token: jwt,
    body: {
      provider_key: 'corp',
      name: 'Corp ID',
      issuer_url: 'https://id.example.com',
      client_id: 'switchboard',
      client_secret: 'not-a-real-secret-1',
    },
  })
  await api('/api/admin/settings/smtp', {
    method: 'PUT',
    token: jwt,
    body: {
      enabled: true,
      host: 'smtp.example.com',
      port: 587,
      username: 'mailer',
      password: 'not-a-real-secret-2',
      from_address: 'switchboard@example.com',
      from_name: 'Switchboard',
    },
  })
  await api('/api/admin/settings/branding.name', { method: 'PUT', token: jwt, body: { value: 'Example Corp' } })
  await api(`/api/admin/users/${memberId}`, { method: 'PUT', token: jwt, body: { name: 'Grace B. Hopper' } })
  return { memberId, teamId: team.id!, providerId: provider.id! }
}

async function shootAdminPages(combo: Combo, data: AdminData): Promise<void> {
  const ctx = await context(combo)
  const page = await ctx.newPage()
  await signIn(page, ADMIN)
  const pages: [string, string, string?][] = [
    ['admin-users', '/admin/users', '[data-testid="users"] tbody tr'],
    ['admin-user', `/admin/users/${data.memberId}`, '[data-testid="user-facts"]'],
    ['admin-teams', '/admin/teams', '[data-testid="teams"] tbody tr'],
    ['admin-team', `/admin/teams/${data.teamId}`, '[data-testid="team-members"] tbody tr'],
    ['admin-settings', '/admin/settings', '[data-testid="password-state"]'],
    ['admin-providers', '/admin/providers', '[data-testid="providers"] tbody tr'],
    ['admin-provider', `/admin/providers/${data.providerId}`, '[data-testid="callback-url"]'],
    ['admin-provider-new', '/admin/providers/new'],
    ['admin-audit', '/admin/audit', '[data-testid="audit"] tbody tr'],
  ]
  for (const [name, url, ready] of pages) {
    await page.goto(url)
    if (ready !== undefined) await page.locator(ready).first().waitFor()
    await shoot(page, name, combo)
  }
  await page.goto(`/admin/users/${data.memberId}`)
  await page.locator('[data-testid="user-facts"]').waitFor()
  await page.locator('input[name="email"]').fill('grace@navy.example')
  await page.locator('form button[type="submit"]').first().click()
  await page.locator('input[name="current_password"]').waitFor()
  await shoot(page, 'admin-reauth', combo)
  await ctx.close()
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true })
  for (const file of fs.readdirSync(OUT)) if (file.endsWith('.png')) fs.rmSync(path.join(OUT, file))
  server = await startConsoleServer()
  browser = await launchBrowser()
  try {
    for (const combo of COMBOS) {
      const ctx = await context(combo)
      const page = await ctx.newPage()
      await page.goto('/setup')
      await shoot(page, 'setup', combo)
      await ctx.close()
    }

    const { token: jwt } = await api('/api/auth/setup', { method: 'POST', body: ADMIN })
    const { token: admin } = await api('/api/tokens', { method: 'POST', token: jwt, body: { name: 'deploy-ci', expires_in_days: 90 } })
    await api('/api/tokens', { method: 'POST', token: jwt, body: { name: 'backup-script' } })
    await api('/api/users/me', { token: admin })
    const member = await api('/api/admin/users', { method: 'POST', token: admin, body: MEMBER })
    const adminData = await arrangeAdminPages(jwt!, member.id!)

    for (const combo of COMBOS) {
      await api('/api/users/me', { method: 'PATCH', token: admin, body: { language: combo.language, theme: 'auto' } })

      const signedOut = await context(combo)
      const out = await signedOut.newPage()
      await out.goto('/login')
      await shoot(out, 'login', combo)
      await out.locator('input[name="email"]').fill(ADMIN.email)
      await out.locator('input[name="password"]').fill('wrong-password')
      await out.locator('button[type="submit"]').click()
      await out.locator('.field-error').waitFor()
      await shoot(out, 'login-error', combo)
      await out.goto('/login?error=ACCESS_DENIED')
      await shoot(out, 'login-oidc-error', combo)
      await out.goto('/login/mfa')
      await shoot(out, 'login-mfa', combo)
      await out.goto('/verify-email?token=expired-link')
      await out.getByRole('alert').waitFor()
      await shoot(out, 'verify-email', combo)
      await out.goto('/invitations/accept?token=abc')
      await out.locator('a.button').waitFor()
      await shoot(out, 'invitation', combo)
      await signedOut.close()

      const ctx = await context(combo)
      const page = await ctx.newPage()
      await signIn(page, ADMIN)
      await shoot(page, 'home', combo)
      await page.goto('/account')
      await shoot(page, 'profile', combo)
      await page.goto('/account/security')
      await page.locator('[data-testid="sessions"] tbody tr').first().waitFor()
      await shoot(page, 'security', combo)
      await page.locator('input[name="password"]').fill(ADMIN.password)
      await page.locator('form button[type="submit"]').first().click()
      await page.locator('[data-testid="totp-secret"]').waitFor()
      await shoot(page, 'security-enrol', combo)
      await page.getByRole('button', { name: /Cancel|Abbrechen/ }).click()
      await page.goto('/account/tokens')
      await page.locator('[data-testid="tokens"] tbody tr').first().waitFor()
      await shoot(page, 'tokens', combo)
      await page.goto('/account/no-such-page')
      await shoot(page, 'not-found', combo)
      await page.route('**/api/**', (route) => route.abort('connectionrefused'))
      await page.goto('/account')
      await shoot(page, 'offline', combo)
      await ctx.close()

      await shootAdminPages(combo, adminData)

      const memberContext = await context(combo)
      const memberPage = await memberContext.newPage()
      await signIn(memberPage, MEMBER)
      await memberPage.goto('/admin')
      await shoot(memberPage, 'forbidden', combo)
      await memberContext.close()

      const phone = await context(combo, PHONE)
      const phonePage = await phone.newPage()
      await phonePage.goto('/login')
      await shoot(phonePage, 'login', combo, '-mobile')
      await signIn(phonePage, ADMIN)
      await phonePage.goto('/account/security')
      await phonePage.locator('[data-testid="sessions"] tbody tr').first().waitFor()
      await shoot(phonePage, 'security', combo, '-mobile')
      await phone.close()
    }
  } finally {
    await browser.close()
    await server.stop()
  }
  console.log(`wrote ${written.length} screenshots to ${path.relative(process.cwd(), OUT)}/`)
}

await main()
