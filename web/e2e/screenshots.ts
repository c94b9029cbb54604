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
  await page.waitForURL(`${server.baseUrl}/links`)
}

// ----- Links area (issue 13): links, link dialog, palette, import/export, keyword, preferences -----
async function arrangeLinks(token: string): Promise<void> {
  const tag = (name: string) => api('/api/tags', { method: 'POST', token, body: { name } })
  const [docs, onboarding] = [await tag('docs'), await tag('onboarding')]
  await tag('ops')
  const org = await api('/api/organizations', { method: 'POST', token, body: { name: 'Analytical Society' } })
  const link = (body: Record<string, unknown>) => api('/api/links', { method: 'POST', token, body })
  await link({ url: 'https://wiki.example.com/handbook', title: 'Engineering handbook', slug: 'handbook', tag_ids: [docs.id, onboarding.id] })
  await link({ url: 'https://status.example.com/', title: 'Status page', slug: 'status', tag_ids: [] })
  await link({ url: 'https://calendar.example.com/team', title: 'Team calendar', slug: 'cal', organization_id: org.id })
  await link({ url: 'https://society.example.org/handbook', title: 'Society handbook', slug: 'handbook', organization_id: org.id })
  await link({ url: 'https://runbooks.example.com/', title: 'Runbooks', tag_ids: [docs.id] })
  const society = (await api('/api/links?q=society', { token })) as unknown as { items: { id: string }[] }
  await api('/api/go/preferences/handbook', { method: 'PUT', token, body: { link_id: society.items[0]!.id } })
}

async function shootLinks(page: Page, combo: Combo): Promise<void> {
  await page.goto('/links')
  await page.locator('[data-testid="links"] tbody tr').first().waitFor()
  await shoot(page, 'links', combo)
  await page.locator('.page-actions button').click()
  await page.locator('.modal input[name="slug"]').fill('onboarding')
  await page.locator('.slug-status-good:not(:empty)').waitFor()
  await shoot(page, 'links-create', combo)
  await page.keyboard.press('Escape')
  await page.keyboard.press('Control+k')
  await page.locator('.palette-search input').waitFor()
  await page.keyboard.type('hand')
  await page.locator('.palette-detail').first().waitFor()
  await page.locator('.palette-item').first().waitFor()
  await shoot(page, 'palette', combo)
  await page.keyboard.press('Escape')
  await page.goto('/links/import-export')
  await shoot(page, 'links-import-export', combo)
  await page.goto('/links/go-keyword')
  await shoot(page, 'links-go-keyword', combo)
  await page.goto('/links/preferences')
  await page.locator('[data-testid="preferences"] tbody tr').first().waitFor()
  await shoot(page, 'links-preferences', combo)
}
// ----- end of the Links area -----

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
    await api('/api/admin/users', { method: 'POST', token: admin, body: MEMBER })
    await arrangeLinks(admin!)

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
      await shootLinks(page, combo)
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

      const member = await context(combo)
      const memberPage = await member.newPage()
      await signIn(memberPage, MEMBER)
      await memberPage.goto('/admin')
      await shoot(memberPage, 'forbidden', combo)
      await member.close()

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
