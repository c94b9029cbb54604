/**
 * Administration and everyday use in real Chromium against the built server: no page
 * scrolls sideways at 390 px and tables stack; a 100-character name keeps every table inside its
 * page; the audit log names its targets, shows readable details with the raw JSON behind a toggle,
 * filters by an action area and refuses From after Before (English and German); the command
 * palette keeps keys typed right after Ctrl+K and opens a link with Enter; an unknown address shows
 * the console's not-found page; a signed-out first load asks /api/users/me once; a member is
 * offered no administration; the Organizations page says what a team is, as the Teams page does.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkAccessibility, expectHeading } from './checks.ts'
import { startOidcProvider, type OidcProviderStandIn } from '../../test/helpers/oidc-provider.ts'
import {
  ALL_TOKEN_PERMISSIONS,
  openBrowser,
  type FileBrowser,
  recordActivity,
  startConsoleServer,
  type ConsoleServer,
  waitForSignedInFrame,
} from './harness.ts'
import enOrgs from '../src/i18n/en/orgs.json' with { type: 'json' }
import deOrgs from '../src/i18n/de/orgs.json' with { type: 'json' }

const ADMIN = {
  name: 'Margaret Hamilton',
  email: 'margaret@example.com',
  password: 'apollo-guidance-1969',
}
const MEMBER = {
  name: 'Frances Allen',
  email: 'frances@example.com',
  password: 'optimizing-compilers-1966',
}
const LONG = `deploy-${'x'.repeat(93)}` // 100 characters, no place to break
const LONG_URL = `https://example.com/${'path-segment/'.repeat(12)}end`

let server: ConsoleServer
let browser: FileBrowser
let adminJwt: string
let tokenId: string
let linkTitle: string
let idp: OidcProviderStandIn
let memberId: string

async function api(
  pathname: string,
  init: { method?: string; token?: string; body?: unknown } = {},
) {
  const response = await fetch(`${server.baseUrl}${pathname}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  const text = await response.text()
  return {
    status: response.status,
    json: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
  }
}

beforeAll(async () => {
  server = await startConsoleServer()
  browser = await openBrowser()
  const setup = await api('/api/auth/setup', { method: 'POST', body: ADMIN })
  expect(setup.status).toBe(201)
  adminJwt = setup.json.token as string
  const member = await api('/api/admin/users', { method: 'POST', token: adminJwt, body: MEMBER })
  expect(member.status).toBe(201)
  memberId = member.json.id as string
  idp = await startOidcProvider({ redirectUris: [] })
  expect(
    (
      await api('/api/admin/users', {
        method: 'POST',
        token: adminJwt,
        body: { ...MEMBER, email: 'long@example.com', name: LONG },
      })
    ).status,
  ).toBe(201)
  const token = await api('/api/tokens', {
    method: 'POST',
    token: adminJwt,
    body: { name: LONG, permissions: ALL_TOKEN_PERMISSIONS, organization_boundary: 'all' },
  })
  expect(token.status).toBe(201)
  tokenId = token.json.id as string
  linkTitle = 'Runbook for the guidance computer'
  expect(
    (
      await api('/api/links', {
        method: 'POST',
        token: adminJwt,
        body: { url: LONG_URL, title: linkTitle },
      })
    ).status,
  ).toBe(201)
  expect(
    (
      await api('/api/admin/teams', {
        method: 'POST',
        token: adminJwt,
        body: { name: LONG, description: LONG_URL },
      })
    ).status,
  ).toBe(201)
}, 120_000)

afterAll(async () => {
  await idp?.close()
  await browser?.close()
  await server?.stop()
})

async function signIn(
  who: { email: string; password: string },
  options: { width?: number; height?: number; locale?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    locale: options.locale ?? 'en-US',
  })
  const page = await context.newPage()
  const lately = recordActivity(page)
  await page.goto('/login')
  await page.locator('input[name="email"]').fill(who.email)
  await page.locator('input[name="password"]').fill(who.password)
  await page.locator('button[type="submit"]').click()
  await page.waitForURL(`${server.baseUrl}/links`)
  // The address changes before the signed-in frame replaces the sign-in page: wait for the frame
  // (its keyboard shortcut listens from then on) and the page in it.
  await waitForSignedInFrame(page, lately)
  await page.locator('main.content h1').waitFor()
  return { context, page }
}

/** The administrator's language (the console follows the account's, not the browser's). */
async function setAdminLanguage(language: 'en' | 'de'): Promise<void> {
  expect(
    (await api('/api/users/me', { method: 'PATCH', token: adminJwt, body: { language } })).status,
  ).toBe(200)
}

/** How far the page scrolls sideways (0 when it does not). */
const sidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/** Every table's right edge against its page's content area (px beyond it; 0 when all fit). */
const tablesOverflow = (page: Page) =>
  page.evaluate(() => {
    const main = document.querySelector('main')!.getBoundingClientRect()
    return Math.max(
      0,
      ...[...document.querySelectorAll('main table')].map(
        (table) => table.getBoundingClientRect().right - main.right,
      ),
    )
  })

const PAGES = [
  { path: '/account/tokens', table: 'table' },
  { path: '/account/activity', table: '[data-testid="security-events"]' },
  { path: '/admin/users', table: 'table' },
  { path: '/admin/audit', table: '[data-testid="audit"]' },
]

describe('phones (390 px) and long names', () => {
  for (const locale of ['en-US', 'de-DE'] as const) {
    it(`no page scrolls sideways at 390 px and tables become stacked rows (${locale})`, async () => {
      await setAdminLanguage(locale === 'de-DE' ? 'de' : 'en')
      const { context, page } = await signIn(ADMIN, { width: 390, height: 844, locale })
      const measured: string[] = []
      for (const target of PAGES) {
        await page.goto(target.path)
        await page.locator(target.table).first().waitFor()
        await expect.poll(() => page.locator('main h1').count()).toBe(1)
        const scroll = await sidewaysScroll(page)
        measured.push(`${target.path}: ${scroll}px`)
        expect(scroll, `${target.path} scrolls sideways by ${scroll}px`).toBeLessThanOrEqual(0)
        // A stacked row: the cells sit below one another, each named by its column.
        const display = await page
          .locator(target.table)
          .first()
          .locator('tbody td')
          .first()
          .evaluate((cell) => [getComputedStyle(cell).display, cell.getAttribute('data-label')])
        expect(display[0]).toBe('block')
        expect(display[1]).not.toBeNull()
      }
      // The top bar's search is an icon button with its name kept for assistive technology.
      const search = page.locator('.palette-button')
      expect(
        await search
          .locator('.palette-label')
          .evaluate((label) => label.getBoundingClientRect().width),
      ).toBeLessThanOrEqual(1)
      expect(await search.getAttribute('aria-keyshortcuts')).toContain('Control+K')
      expect((await search.textContent())?.trim()).not.toBe('')
      // The menu is a drawer under the top bar, in view on a scrolled page, over a scrim. Escape
      // closes it (focus back on its button), and so does a tap outside it; closed, nothing of it
      // covers the page.
      const menu = page.getByRole('button', { name: locale === 'de-DE' ? 'Menü' : 'Menu' })
      const drawer = page.locator('#side-nav')
      const scrim = page.locator('.nav-scrim')
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
      await menu.click()
      await expect.poll(() => drawer.isVisible()).toBe(true)
      expect(await menu.getAttribute('aria-expanded')).toBe('true')
      const drawn = (await drawer.boundingBox())!
      expect(drawn.y).toBe(56)
      expect(drawn.y + drawn.height).toBeLessThan(844)
      expect(await scrim.isVisible()).toBe(true)
      await checkAccessibility(page, `menu drawer at 390 px (${locale})`)
      await page.keyboard.press('Escape')
      await expect.poll(() => drawer.isVisible()).toBe(false)
      expect(await scrim.count()).toBe(0)
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls'))).toBe(
        'side-nav',
      )
      await menu.click()
      await expect.poll(() => drawer.isVisible()).toBe(true)
      // Below the drawer, on the scrim.
      await page.mouse.click(195, drawn.y + drawn.height + 20)
      await expect.poll(() => drawer.isVisible()).toBe(false)
      expect(await scrim.count()).toBe(0)
      // Closed, the page under the top bar is the page's own.
      expect(
        await page.evaluate(() => document.elementFromPoint(195, 400)?.closest('main') !== null),
      ).toBe(true)
      await checkAccessibility(page, `audit log at 390 px (${locale})`)
      console.log(`sideways scroll at 390 px (${locale}): ${measured.join(', ')}`)
      await context.close()
      await setAdminLanguage('en')
    }, 180_000)
  }

  it('a 100-character name keeps every table inside the page at 1280 px', async () => {
    const { context, page } = await signIn(ADMIN)
    for (const path of ['/account/tokens', '/admin/users', '/admin/teams', '/admin/audit']) {
      await page.goto(path)
      await page.locator('main table').first().waitFor()
      await expect
        .poll(() => page.locator('main').getByText(LONG).count(), { timeout: 15_000 })
        .toBeGreaterThan(0)
      const overflow = await tablesOverflow(page)
      expect(overflow, `${path}: a table reaches ${overflow}px past the page`).toBeLessThanOrEqual(
        1,
      )
      expect(await sidewaysScroll(page), path).toBeLessThanOrEqual(0)
    }
    await context.close()
  }, 120_000)
})

describe('the audit log is readable', () => {
  it('names targets (id on hover), shows readable details with the raw JSON behind a toggle, and filters by an action area', async () => {
    const { context, page } = await signIn(ADMIN)
    await page.goto('/admin/audit')
    await expectHeading(page, 'Audit log')
    const tokenRow = page
      .locator('[data-testid="audit"] tbody tr', { hasText: 'token.create' })
      .first()
    const target = tokenRow.getByTestId('audit-target')
    expect(await target.textContent()).toContain(LONG)
    expect(await target.textContent()).toContain('API token')
    expect(await target.getAttribute('title')).toContain(tokenId)
    // Readable facts; the raw JSON only after the toggle.
    expect(await tokenRow.locator('.audit-json').count()).toBe(0)
    const toggle = tokenRow.getByRole('button', { name: 'Raw details' })
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    expect(JSON.parse((await tokenRow.locator('.audit-json').textContent()) ?? '')).toEqual(
      expect.any(Object),
    )

    // The picker offers areas and actions; an area selects all of its actions (prefix).
    const action = page.getByTestId('audit-action')
    await action.click()
    await action.fill('token')
    await expect.poll(() => page.getByRole('option', { name: 'token.create' }).count()).toBe(1)
    await page.getByRole('option', { name: 'Every token action' }).click()
    expect(await action.inputValue()).toBe('token')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL(/action=token/)
    await expect
      .poll(() => page.locator('[data-testid="audit"] tbody tr').count())
      .toBeGreaterThan(0)
    const actions = await page
      .locator('[data-testid="audit"] tbody tr td:nth-child(3)')
      .allTextContents()
    expect(actions.every((text) => text.startsWith('token.'))).toBe(true)
    await checkAccessibility(page, 'audit log filtered by area')
    await context.close()
  }, 120_000)

  it("at 1280 px a target's kind is above its whole name (an email, a token's), and the filters line up at the top (German)", async () => {
    // A refused sign-in: its actor is "nobody signed in", the longest text in the actor column.
    expect(
      (
        await api('/api/auth/login', {
          method: 'POST',
          body: { email: ADMIN.email, password: 'not-the-password' },
        })
      ).status,
    ).toBe(401)
    const created = await api('/api/tokens', {
      method: 'POST',
      token: adminJwt,
      body: { name: 'screenshot-token', permissions: ['links:read'] },
    })
    expect(created.status).toBe(201)
    await setAdminLanguage('de')
    const { context, page } = await signIn(ADMIN)
    await page.goto('/admin/audit')
    await expectHeading(page, 'Audit-Protokoll')
    const target = page
      .locator('[data-testid="audit"] tbody tr', { hasText: 'auth.login' })
      .first()
      .getByTestId('audit-target')
    expect(await target.textContent()).toContain(ADMIN.email)
    // The lines the address takes on screen: one, never "margaret@example.co" then "m".
    const lines = await target.evaluate((element) => {
      const range = document.createRange()
      range.selectNodeContents(element.lastChild!)
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size
    })
    expect(lines).toBe(1)
    // A token's name is whole on the line below its kind, never "API token screenshot-" / "token".
    const token = page
      .locator('[data-testid="audit"] tbody tr', { hasText: 'token.create' })
      .first()
      .getByTestId('audit-target')
    expect(
      await token.evaluate((element) => {
        const kind = element.firstElementChild!.getBoundingClientRect()
        const range = document.createRange()
        range.selectNodeContents(element.lastChild!)
        const name = [...range.getClientRects()]
        return { below: name.every((rect) => rect.top >= kind.bottom - 1), lines: name.length }
      }),
    ).toEqual({ below: true, lines: 1 })
    // Action carries help below it; every field's label starts at the same height all the same.
    const tops = await page
      .locator('form[role="search"] > .field')
      .evaluateAll((fields) => fields.map((field) => Math.round(field.getBoundingClientRect().top)))
    expect(tops).toHaveLength(4)
    expect(new Set(tops).size).toBe(1)
    expect(await tablesOverflow(page)).toBeLessThanOrEqual(1)
    await checkAccessibility(page, 'audit log (de, 1280 px)')
    await context.close()
    await setAdminLanguage('en')
  }, 120_000)

  // The date fields follow the console's language, not the browser's: each case runs in a browser
  // set to the other language. Keys are typed segment by segment, in the order the language writes.
  for (const { language, browserLocale, message, order, since, until, later, shown } of [
    {
      language: 'en',
      browserLocale: 'de-DE',
      message: '“Before” must be later than “From”.',
      order: ['month', 'day', 'year', 'hour', 'minute', 'dayPeriod'],
      since: '050220261000A',
      until: '050120261000A',
      later: '050320261000A',
      shown: '05/02/2026, 10:00 AM',
    },
    {
      language: 'de',
      browserLocale: 'en-US',
      message: '„Vor“ muss später sein als „Ab“.',
      order: ['day', 'month', 'year', 'hour', 'minute'],
      since: '020520261000',
      until: '010520261000',
      later: '030520261000',
      shown: '02.05.2026, 10:00',
    },
  ] as const) {
    it(`audit dates in the console's language (${language}, browser ${browserLocale}); From after Before is refused in the form`, async () => {
      await setAdminLanguage(language)
      const { context, page } = await signIn(ADMIN, { locale: browserLocale })
      await page.goto('/admin/audit')
      await page.getByTestId('audit').waitFor()
      const field = (name: 'since' | 'until') =>
        page.locator(`form[role="search"] [data-field="${name}"]`)
      const segments = field('since').locator('[role="spinbutton"]')
      expect(
        await segments.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-type'))),
      ).toEqual(order)
      // What the field shows, without the direction marks React Aria puts around its segments.
      const shownIn = async (name: 'since' | 'until') =>
        ((await field(name).locator('.date-time-input').textContent()) ?? '')
          .replace(/[\u200e\u2066-\u2069]/g, '')
          .replace(/\s+/g, ' ')
          .trim()
      const typeInto = async (name: 'since' | 'until', keys: string) => {
        await field(name).locator('[role="spinbutton"]').first().click()
        await page.keyboard.type(keys)
      }
      await typeInto('since', since)
      await typeInto('until', until)
      expect(await shownIn('since')).toBe(shown)
      await page.locator('form[role="search"] button[type="submit"]').click()
      await expect
        .poll(() => page.locator('form[role="search"] .field-error').textContent())
        .toBe(message)
      expect(new URL(page.url()).search).toBe('')
      // The first segment of Before has the focus; the field says it is invalid.
      expect(
        await page.evaluate(() =>
          document.activeElement?.closest('[data-field]')?.getAttribute('data-field'),
        ),
      ).toBe('until')
      expect(await field('until').getAttribute('data-invalid')).toBe('true')
      await checkAccessibility(page, `audit date fields (${language})`)

      // A valid window goes into the address, and the fields show it again after the page reads it.
      await typeInto('until', later)
      await page.locator('form[role="search"] button[type="submit"]').click()
      await page.waitForURL(/since=.*until=/)
      await expect.poll(() => shownIn('since')).toBe(shown)
      await context.close()
      await setAdminLanguage('en')
    }, 120_000)
  }
})

describe('the command palette', () => {
  it('keeps keys typed 0 ms after Ctrl+K, also on its first opening', async () => {
    const { context, page } = await signIn(ADMIN)
    await page.goto('/account')
    await expectHeading(page, 'Profile')
    // No wait between the shortcut and the typing; the palette's code may not be loaded yet.
    await page.keyboard.press('Control+k')
    await page.keyboard.type('guidance', { delay: 0 })
    const input = page.getByRole('combobox', { name: /Search links/ })
    await expect.poll(() => input.inputValue()).toBe('guidance')
    // Again after closing: the second opening starts empty and keeps every key too.
    await page.keyboard.press('Escape')
    await page.keyboard.press('Control+k')
    await page.keyboard.type('runbook', { delay: 0 })
    await expect.poll(() => input.inputValue()).toBe('runbook')
    await context.close()
  }, 120_000)

  it('Enter on a link opens it; Ctrl+Enter goes to its place in the Links page', async () => {
    const { context, page } = await signIn(ADMIN)
    // The link's site, answered here: the test runs offline.
    await context.route('https://example.com/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'the runbook' }),
    )
    const option = page.getByRole('menuitem', { name: new RegExp(linkTitle) })
    // The palette's other sections (tags, organizations, two-factor state) load beside the links
    // and re-render the list: the keys go once every answer is in and the link is the highlighted
    // item (a CI run once pressed Enter while another item was, and no tab opened).
    const highlightLink = async () => {
      await page.keyboard.press('Control+k')
      await page.keyboard.type('guidance')
      await option.waitFor()
      await page.waitForLoadState('networkidle')
      // The link is the first result. A re-render by a late answer can still take the highlight
      // away (a CI run read no highlight after one ArrowDown): press it again while nothing is
      // highlighted, as a person would; a highlight on another item fails the wait.
      await expect
        .poll(async () => {
          if ((await option.getAttribute('data-focused')) === 'true') return true
          if ((await page.locator('[role="menuitem"][data-focused="true"]').count()) === 0)
            await page.keyboard.press('ArrowDown')
          return false
        })
        .toBe(true)
    }
    await highlightLink()
    const opened = context.waitForEvent('page')
    await page.keyboard.press('Enter')
    const tab = await opened
    await expect.poll(() => tab.url(), { timeout: 15_000 }).toBe(LONG_URL)
    await tab.close()

    await highlightLink()
    await page.keyboard.press('Control+Enter')
    await page.waitForURL(/\/links\?q=/)
    await context.close()
  }, 120_000)
})

describe('addresses and roles', () => {
  it("an unknown address shows the console's not-found page, never raw JSON", async () => {
    const context = await browser.newContext({ baseURL: server.baseUrl, locale: 'en-US' })
    const page = await context.newPage()
    const response = await page.goto('/no-such-page')
    expect(response?.status()).toBe(404)
    await expectHeading(page, 'Page not found')
    expect(await page.locator('body').textContent()).not.toContain('"reason"')
    await context.close()
  }, 60_000)

  it('signed in, the not-found page keeps the console frame', async () => {
    const { context, page } = await signIn(MEMBER)
    const response = await page.goto('/no-such-page')
    expect(response?.status()).toBe(404)
    await expectHeading(page, 'Page not found')
    const navigation = page.getByRole('navigation', { name: 'Main' })
    await navigation.getByRole('link', { name: 'Links' }).waitFor()
    expect(await page.locator('main').count()).toBe(1)
    await checkAccessibility(page, 'not found, signed in')
    await navigation.getByRole('link', { name: 'Links' }).click()
    await expectHeading(page, 'Links')
    await context.close()
  }, 60_000)

  it('a signed-out first load asks /api/users/me once', async () => {
    const context = await browser.newContext({ baseURL: server.baseUrl, locale: 'en-US' })
    const page = await context.newPage()
    const asked: string[] = []
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/users/me') asked.push(request.url())
    })
    await page.goto('/account/tokens')
    await page.waitForURL(/\/login/)
    await expectHeading(page, 'Sign in')
    await page.waitForLoadState('networkidle')
    expect(asked).toHaveLength(1)
    await context.close()
  }, 60_000)

  it('a member is offered no administration: not in the navigation, not in the palette, not at its address', async () => {
    const { context, page } = await signIn(MEMBER)
    expect(
      await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).count(),
    ).toBe(0)
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Users' }).count()).toBe(0)
    await page.keyboard.press('Control+k')
    await page.keyboard.type('admin')
    await expect.poll(() => page.locator('.palette').textContent()).toContain('Nothing found')
    await page.keyboard.press('Escape')
    await page.goto('/admin/users')
    await expectHeading(page, 'Not allowed')
    await context.close()
  }, 60_000)
})

describe('settings, identity providers and teams', () => {
  it('the settings page has its own navigation to each section', async () => {
    const { context, page } = await signIn(ADMIN)
    await page.goto('/admin/settings')
    const nav = page.getByRole('navigation', { name: 'Settings sections' })
    await nav.waitFor()
    const names = await nav.getByRole('link').allTextContents()
    expect(names).toEqual([
      'Two-factor authentication requirement',
      'Outgoing email (SMTP)',
      'AI suggestions',
      'API tokens',
      'Sign-up',
      'Other settings',
    ])
    for (const href of await nav
      .getByRole('link')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')))) {
      expect(await page.locator(`section${href}`).count(), `${href} names a section`).toBe(1)
    }
    await nav.getByRole('link', { name: 'API tokens' }).click()
    await page.waitForURL(/#api-tokens$/)
    await checkAccessibility(page, 'settings with its navigation')
    await context.close()
  }, 60_000)

  for (const [locale, texts] of [
    [
      'en-US',
      {
        title: 'Add identity provider',
        failed: 'nothing answered at that address',
        create: 'Add identity provider',
        proof: 'Confirm it is you',
        password: 'Current password',
        confirm: 'Confirm and continue',
      },
    ],
    [
      'de-DE',
      {
        title: 'Identitätsanbieter hinzufügen',
        failed: 'unter dieser Adresse hat niemand geantwortet',
        create: 'Identitätsanbieter hinzufügen',
        proof: 'Bestätigen Sie, dass Sie es sind',
        password: 'Aktuelles Passwort',
        confirm: 'Bestätigen und fortfahren',
      },
    ],
  ] as const) {
    it(`a new provider starts from a preset, shows its callback URL before saving, and is saved only after its issuer checks out (${locale})`, async () => {
      await setAdminLanguage(locale === 'de-DE' ? 'de' : 'en')
      try {
        const { context, page } = await signIn(ADMIN, { locale })
        await page.goto('/admin/providers/new')
        await expectHeading(page, texts.title)
        await page.getByTestId('provider-presets').getByRole('button', { name: 'Keycloak' }).click()
        expect(await page.locator('input[name="issuer_url"]').inputValue()).toBe(
          'https://{keycloak-host}/realms/{realm}',
        )
        // The callback URL follows the key as it is typed, before anything is saved.
        await expect
          .poll(() => page.getByTestId('callback-url').textContent())
          .toBe(`${server.baseUrl}/api/auth/oidc/keycloak/callback`)
        const key = `corp-${locale.slice(0, 2)}`
        await page.locator('input[name="provider_key"]').fill(key)
        await expect
          .poll(() => page.getByTestId('callback-url').textContent())
          .toBe(`${server.baseUrl}/api/auth/oidc/${key}/callback`)
        await page.locator('input[name="name"]').fill(`Corp ${locale}`)
        await page.locator('input[name="client_id"]').fill('switchboard')
        await page.locator('input[name="client_secret"]').fill('a client secret for the test')
        // Nobody listens there: the issuer field says so, nothing is saved.
        await page.locator('input[name="issuer_url"]').fill('http://127.0.0.1:9')
        await page.locator('form').getByRole('button', { name: texts.create }).click()
        await expect
          .poll(() => page.locator('input[name="issuer_url"]').getAttribute('aria-invalid'))
          .toBe('true')
        expect(await page.locator('form .field-error').first().textContent()).toContain(
          texts.failed,
        )
        // The issuer is checked before the administrator is asked for their password.
        const proof = page.getByRole('dialog', { name: texts.proof })
        expect(await proof.count()).toBe(0)
        expect(
          ((await api('/api/oidc-providers', { token: adminJwt })).json.items as unknown[]).length,
        ).toBe(locale === 'en-US' ? 0 : 1)
        // The local identity provider's discovery document checks out: saved once the
        // administrator has given their own password.
        await page.locator('input[name="issuer_url"]').fill(idp.issuer)
        await page.locator('form').getByRole('button', { name: texts.create }).click()
        await proof.getByLabel(texts.password).fill(ADMIN.password)
        await proof.getByRole('button', { name: texts.confirm }).click()
        await expectHeading(page, `Corp ${locale}`)
        await context.close()
      } finally {
        await setAdminLanguage('en')
      }
    }, 120_000)
  }

  it("says what a team is for, and a person's user page lists their teams", async () => {
    const team = await api('/api/admin/teams', {
      method: 'POST',
      token: adminJwt,
      body: { name: 'On-call rota' },
    })
    expect(
      (
        await api(`/api/admin/teams/${team.json.id as string}/members`, {
          method: 'POST',
          token: adminJwt,
          body: { user_id: memberId },
        })
      ).status,
    ).toBe(201)
    const { context, page } = await signIn(ADMIN)
    await page.goto('/admin/teams')
    expect(await page.getByTestId('teams-purpose').textContent()).toBe(enOrgs['orgs.teamsPurpose'])
    expect(enOrgs['orgs.teamsPurpose']).toContain('organizations')
    await page.goto(`/admin/users/${memberId}`)
    const teams = page.getByTestId('user-teams')
    await expect.poll(() => teams.getByRole('link').allTextContents()).toEqual(['On-call rota'])
    await teams.getByRole('link', { name: 'On-call rota' }).click()
    await expectHeading(page, 'On-call rota')
    await context.close()
  }, 60_000)

  it('the Organizations page says what a team is, in the same words as the Teams page (a member, English and German)', async () => {
    const member = await signIn(MEMBER)
    await member.page.goto('/orgs')
    await expectHeading(member.page, 'Organizations')
    await expect
      .poll(() => member.page.getByTestId('teams-purpose').textContent())
      .toBe(enOrgs['orgs.teamsPurpose'])
    await member.context.close()
    await setAdminLanguage('de')
    const { context, page } = await signIn(ADMIN, { locale: 'en-US' })
    for (const [path, heading] of [
      ['/orgs', 'Organisationen'],
      ['/admin/teams', 'Teams'],
    ] as const) {
      await page.goto(path)
      await expectHeading(page, heading)
      await expect
        .poll(() => page.getByTestId('teams-purpose').textContent())
        .toBe(deOrgs['orgs.teamsPurpose'])
    }
    await checkAccessibility(page, 'teams explained on the Teams page, in German')
    await context.close()
    await setAdminLanguage('en')
  }, 60_000)
})
