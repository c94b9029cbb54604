/**
 * Go-links in real Chromium: signed out → sign in → the miss page → create (the dialog
 * prefilled, the live preview) → /go/<slug> opens it; the clicks chart and the list sorted by
 * clicks; Recently deleted with a restore whose slug was taken meanwhile; transfer to an
 * organization; a link offered by a colleague, accepted on the Links page; the miss page in German
 * and dark (no script on any /go page). axe on every new view, both themes.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  apiRequest,
  arrangingApi,
  openBrowser,
  type FileBrowser,
  setUpAdministrator,
  signIn,
  startConsoleServer,
  type ArrangingApi,
  type ConsoleServer,
} from './harness.ts'
import * as checks from './checks.ts'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const CHARLES = {
  name: 'Charles Babbage',
  email: 'charles@example.com',
  password: 'difference-engine-1822',
}

let server: ConsoleServer
let browser: FileBrowser
let context: BrowserContext
let page: Page
/** Arranges things through the API as Ada, with a token of every permission. */
let api: ArrangingApi

const expectHeading = (text: string) => checks.expectHeading(page, text)
async function checkAccessibility(name: string, on: Page = page): Promise<void> {
  await on.waitForLoadState('networkidle')
  await checks.checkAccessibility(on, name)
}

beforeAll(async () => {
  // The short host `go` resolves to this machine, as a DNS search domain makes it in an office.
  server = await startConsoleServer({ GO_HOSTS: 'go' })
  browser = await openBrowser(['--host-resolver-rules=MAP go 127.0.0.1'])
  api = arrangingApi(server, (await setUpAdministrator(server, ADA)).token)
  context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
  })
  page = await context.newPage()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('go-links in Chromium', () => {
  it('signed out → sign in → the miss page → create with the slug filled in → /go/<slug> opens it', async () => {
    await page.goto('/go/team-handbook')
    await page.waitForURL('**/login?**')
    await signIn(page, ADA)
    await page.waitForURL(`${server.baseUrl}/go/team-handbook`)
    await expectHeading('go/team-handbook does not exist yet')
    await checkAccessibility('go miss page')

    await page.getByRole('link', { name: 'Create go/team-handbook' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('heading', { name: 'Create link' }).waitFor()
    expect(await dialog.getByLabel('Slug').inputValue()).toBe('team-handbook')
    // The query string's one-time flags are gone: a reload does not open the dialog again.
    await expect.poll(() => new URL(page.url()).search).toBe('')
    await dialog.getByLabel('URL').fill(`${server.baseUrl}/api/health`)
    // URL, Title and Slug come before the path preview.
    const labels = (await dialog.locator('label').allTextContents()).map((text) => text.trim())
    const at = (name: string) => labels.findIndex((text) => text.startsWith(name))
    expect(at('URL')).toBeLessThan(at('Title'))
    expect(at('Title')).toBeLessThan(at('Slug'))
    expect(at('Slug')).toBeLessThan(at('Try a path after the go-link'))
    await dialog.getByLabel('Try a path after the go-link').fill('live?x=1')
    await dialog.getByText(`${server.baseUrl}/api/health/live?x=1`).waitFor()
    await checkAccessibility('link dialog with preview')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('row', { name: /go\/team-handbook/ }).waitFor()

    await page.goto('/go/team-handbook')
    await page.waitForURL(`${server.baseUrl}/api/health`)
  })

  it("shows the link's clicks as a chart and sorts the list by clicks", async () => {
    await api('/api/links', {
      method: 'POST',
      body: { url: 'https://newer.example.com/', title: 'Newer, never clicked' },
    })
    await page.goto('/links')
    // The redirect above is written within about a second.
    await expect
      .poll(
        async () => {
          await page.reload()
          return (await page.getByRole('row', { name: /go\/team-handbook/ }).textContent()) ?? ''
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toContain('1 click in 30 days')
    await expect
      .poll(() => page.getByRole('row').nth(1).textContent())
      .toContain('Newer, never clicked')
    await page.getByRole('link', { name: 'Sort: most clicked first' }).click()
    await page.waitForURL('**/links?sort=clicks')
    await expect
      .poll(() => page.getByRole('row').nth(1).textContent())
      .toContain('go/team-handbook')

    // The row's actions are in its "⋯" menu.
    await page
      .getByRole('row', { name: /go\/team-handbook/ })
      .getByRole('button', { name: /^Actions for / })
      .click()
    await page.getByRole('menuitem', { name: 'Edit' }).click()
    const dialog = page.getByRole('dialog')
    const chart = dialog.getByRole('img', {
      // The day as the page's language writes it.
      name: /^1 click in the last 90 days, on [A-Z][a-z]{2} \d{1,2}, \d{4}\.$/,
    })
    await chart.waitFor()
    expect(await dialog.locator('svg rect').count()).toBe(90)
    await checkAccessibility('link dialog with clicks chart')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })

    // The go-link's "+" page: moments as the console writes them, and the way into its editing.
    const details = await context.newPage()
    await details.goto('/go/team-handbook+')
    await checks.expectHeading(details, 'go/team-handbook')
    expect(await details.locator('time').first().textContent()).toMatch(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M UTC$/,
    )
    await checkAccessibility('go-link details page', details)
    await details.getByRole('link', { name: 'Edit in the console' }).click()
    await details.waitForURL(`${server.baseUrl}/links`)
    const editing = details.getByRole('dialog')
    await editing.getByRole('img', { name: /^1 click in the last 90 days/ }).waitFor()
    expect(await editing.getByLabel('Slug').inputValue()).toBe('team-handbook')
    await details.close()
  })

  it('restores a deleted link from Recently deleted, under another slug when its own was taken meanwhile', async () => {
    await page.goto('/links')
    const row = page.getByRole('row', { name: /go\/team-handbook/ })
    await row.getByRole('button', { name: /^Actions for / }).click()
    await page.getByRole('menuitem', { name: 'Delete' }).click()
    const confirm = page.getByRole('alertdialog')
    await confirm.getByRole('button', { name: 'Delete link' }).click()
    await confirm.waitFor({ state: 'detached' })
    await expect.poll(() => row.count()).toBe(0)
    await api('/api/links', {
      method: 'POST',
      body: { url: 'https://replacement.example.com/', slug: 'team-handbook' },
    })

    await page.getByRole('link', { name: 'Recently deleted' }).click()
    await expectHeading('Recently deleted')
    const deleted = page.getByRole('row', { name: /api\/health/ })
    await deleted.waitFor()
    await checkAccessibility('recently deleted')
    await deleted.getByRole('button', { name: /^Restore / }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('heading', { name: 'go/team-handbook is taken now' }).waitFor()
    await checkAccessibility('restore under another slug')
    await dialog.getByLabel('Slug').fill('team-handbook-old')
    await dialog.getByRole('button', { name: 'Restore' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByText('No links were deleted in the last 30 days.').waitFor()
    const links = (await api('/api/links')).items as Array<{ slug: string | null; url: string }>
    expect(links.find((link) => link.slug === 'team-handbook-old')?.url).toBe(
      `${server.baseUrl}/api/health`,
    )
  })

  it('transfers a link to an organization', async () => {
    const organization = (await api('/api/organizations', {
      method: 'POST',
      body: { name: 'Engine Works' },
    })) as { id: string }
    await page.goto('/links')
    const row = page.getByRole('row', { name: /go\/team-handbook-old/ })
    await row.getByRole('button', { name: /^Actions for / }).click()
    await page.getByRole('menuitem', { name: 'Transfer' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('New owner').selectOption({ label: 'Organization: Engine Works' })
    await checkAccessibility('transfer dialog')
    await dialog.getByRole('button', { name: 'Transfer' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(async () => (await row.textContent()) ?? '').toContain('Engine Works')
    const links = (await api('/api/links')).items as Array<{
      slug: string | null
      organization_id: string | null
    }>
    expect(links.find((link) => link.slug === 'team-handbook-old')?.organization_id).toBe(
      organization.id,
    )
  })

  it('lists a link a colleague offers on the Links page; accepting makes it yours', async () => {
    const organization = (await api('/api/organizations', {
      method: 'POST',
      body: { name: 'Analytical Society' },
    })) as { id: string }
    await api('/api/admin/users', { method: 'POST', body: CHARLES })
    const login = await apiRequest(server, '/api/auth/login', {
      method: 'POST',
      body: { email: CHARLES.email, password: CHARLES.password },
    })
    const charles = arrangingApi(server, ((await login.json()) as { token: string }).token)
    const invited = await api(`/api/organizations/${organization.id}/members`, {
      method: 'POST',
      body: { email: CHARLES.email, role: 'member' },
    })
    await charles(`/api/invitations/${invited.id as string}/accept`, { method: 'POST' })
    const link = await charles('/api/links', {
      method: 'POST',
      body: { url: `${server.baseUrl}/api/health`, slug: 'difference-engine', title: 'Engine' },
    })
    const ada = await api('/api/users/me')
    await charles(`/api/links/${link.id as string}/transfer`, {
      method: 'POST',
      body: { user_id: ada.id },
    })

    await page.goto('/links')
    const offers = page.getByRole('region', { name: 'Links offered to you' })
    await offers.getByText('Charles Babbage offers you go/difference-engine').waitFor()
    await checkAccessibility('links offered to you')
    await offers.getByRole('button', { name: 'Accept' }).click()
    await offers.waitFor({ state: 'detached' })
    await page.getByRole('row', { name: /go\/difference-engine/ }).waitFor()
  })

  it('shows the miss page in German and dark, with no script on it, axe clean', async () => {
    await api('/api/users/me', { method: 'PATCH', body: { language: 'de', theme: 'dark' } })
    const german = await context.newPage()
    const scripts: string[] = []
    german.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(request.url())
    })
    await german.goto('/go/handbuch')
    expect(await german.locator('script').count()).toBe(0)
    expect(scripts).toEqual([])
    await checks.expectHeading(german, 'go/handbuch gibt es noch nicht')
    expect(await german.locator('html').getAttribute('data-theme')).toBe('dark')
    expect(
      await german.getByRole('link', { name: 'go/handbuch anlegen' }).getAttribute('href'),
    ).toBe('/links?new=true&slug=handbuch')
    // The page's own colours, not the browser's defaults: the dark theme's background.
    expect(await german.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(15, 17, 21)',
    )
    await checkAccessibility('go miss page (de, dark)', german)
    // The "+" page and the console it leads to write days as a German reader does (a click
    // first, written within about a second, so the chart names its day).
    await german.goto('/go/team-handbook-old')
    await german.waitForURL(`${server.baseUrl}/api/health`)
    await expect
      .poll(
        async () =>
          (
            (await api('/api/links')).items as Array<{ slug: string | null; clicks_30d: number }>
          ).find((link) => link.slug === 'team-handbook-old')?.clicks_30d ?? 0,
        { timeout: 20_000, interval: 1000 },
      )
      .toBeGreaterThan(0)
    await german.goto('/go/team-handbook-old+')
    await checks.expectHeading(german, 'go/team-handbook-old')
    expect(await german.locator('time').first().textContent()).toMatch(
      /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC$/,
    )
    await german.getByRole('link', { name: 'In der Konsole bearbeiten' }).click()
    await german.waitForURL(`${server.baseUrl}/links`)
    await german
      .getByRole('dialog')
      .getByRole('img', {
        name: /^\d+ Klicks? in den letzten 90 Tagen[,;] .*am \d{2}\.\d{2}\.\d{4}/,
      })
      .waitFor()
    await checkAccessibility('link dialog in German, from the "+" page', german)
    await german.close()
    await api('/api/users/me', { method: 'PATCH', body: { language: 'en', theme: 'auto' } })
  })

  it('go/<slug> on the short host reaches the link after sign-in; pages offer OpenSearch', async () => {
    const port = new URL(server.baseUrl).port
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await api('/api/links', {
      method: 'POST',
      body: { url: `${server.baseUrl}/api/health`, slug: 'status' },
    })
    const tab = await visitor.newPage()
    await tab.goto(`http://go:${port}/status`)
    await tab.waitForURL(`${server.baseUrl}/login?**`)
    await signIn(tab, ADA)
    await tab.waitForURL(`${server.baseUrl}/api/health`)
    expect(await visitor.cookies(`http://go:${port}/`)).toEqual([])

    await tab.goto(`http://go:${port}/`)
    await tab.waitForURL(`${server.baseUrl}/links`)
    const search = tab.locator('link[rel="search"]')
    expect(await search.getAttribute('type')).toBe('application/opensearchdescription+xml')
    const description = await tab.request.get(`${server.baseUrl}/opensearch.xml`)
    expect(await description.text()).toContain(`template="${server.baseUrl}/go/{searchTerms}"`)
    await visitor.close()
  })

  it('says a page is already saved while its URL is typed in the create dialog', async () => {
    await api('/api/links', {
      method: 'POST',
      body: { url: 'https://docs.example.com/guide', slug: 'guide' },
    })
    await page.goto('/links?new=true')
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('URL').fill('HTTPS://Docs.Example.com:443/guide/?utm_medium=mail#top')
    await dialog.getByText('Already saved as go/guide (by Ada Lovelace).').waitFor()
    await dialog.getByLabel('URL').fill('https://docs.example.com/other')
    await dialog.getByText('Already saved as go/guide').waitFor({ state: 'detached' })
    await checkAccessibility('link dialog with a duplicate hint')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
  })
})
