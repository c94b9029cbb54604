/**
 * The Links page in real Chromium against the built server: ten links above the fold
 * at 1280×800 and where the page is in the total, the one filter row (search as you type into the
 * address, the tag found by name in a combobox, the scope as a segmented control), the tags panel
 * searchable and bounded, the link dialog (https:// added, the page title fetched by the service
 * from a local page, a tag created inline, a taken slug said once and gone when the slug changes,
 * IDN shown readable), bulk actions with the count and the restore window in the confirmation, a
 * member who is offered nothing they may not do (and told why) and sees a refusal's message, and a
 * phone's width without sideways scrolling however long the names. English and German; axe on
 * every new view.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ALL_TOKEN_PERMISSIONS,
  openBrowser,
  type FileBrowser,
  startConsoleServer,
  type ConsoleServer,
} from './harness.ts'
import * as checks from './checks.ts'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const MIA = { name: 'Mia Member', email: 'mia@example.com', password: 'member-password-2024' }

let server: ConsoleServer
let pages: Server
let pagesUrl = ''
let browser: FileBrowser
let context: BrowserContext
let page: Page
let adaJwt = ''
let apiToken = ''
const pageErrors: string[] = []

async function api(
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.token ?? apiToken}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>)
}

async function signIn(target: Page, who: { email: string; password: string }): Promise<void> {
  await target.goto('/login')
  await target.getByLabel('Email address').fill(who.email)
  await target.getByLabel('Password', { exact: true }).fill(who.password)
  await target.getByRole('button', { name: 'Sign in', exact: true }).click()
  await target.waitForURL(`${server.baseUrl}/links`)
}

async function checkAccessibility(target: Page, name: string): Promise<void> {
  await target.waitForLoadState('networkidle')
  await checks.checkAccessibility(target, name)
}

/**
 * Whether the page scrolls sideways (the document wider than the window); what sticks out is
 * printed.
 */
async function scrollsSideways(target: Page): Promise<boolean> {
  const { wide, outside } = await target.evaluate(() => {
    const width = document.documentElement.clientWidth
    const outside = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > width + 0.5)
      .slice(0, 5)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${element.className} ${Math.round(element.getBoundingClientRect().right)}`,
      )
    return { wide: document.documentElement.scrollWidth > width, outside }
  })
  if (wide) console.log(`sticks out at ${target.viewportSize()?.width} px: ${outside.join('; ')}`)
  return wide
}

beforeAll(async () => {
  // A page whose title the service fetches (private networks allowed for this instance only).
  pages = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(
      `<!doctype html><html><head><title>Quarterly report – Q3</title></head><body>${request.url}</body></html>`,
    )
  })
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
  pagesUrl = `127.0.0.1:${(pages.address() as AddressInfo).port}`
  server = await startConsoleServer({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' })
  browser = await openBrowser()
  const setup = await fetch(`${server.baseUrl}/api/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADA),
  })
  adaJwt = ((await setup.json()) as { token: string }).token
  apiToken = (
    (await api('/api/tokens', {
      method: 'POST',
      token: adaJwt,
      body: {
        name: 'e2e arrangements',
        permissions: ALL_TOKEN_PERMISSIONS,
        organization_boundary: 'all',
      },
    })) as { token: string }
  ).token
  // Hide the administrator's first-run checklist: this file is about the list.
  await api('/api/admin/checklist', { method: 'PUT', token: adaJwt, body: { dismissed: true } })
  context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
  })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl })
  page = await context.newPage()
  page.on('pageerror', (error) => pageErrors.push(error.message))
  await signIn(page, ADA)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  pages?.closeAllConnections()
  await new Promise((resolve) => pages?.close(resolve))
})

describe('the Links page at 1280×800', () => {
  it('shows at least 10 links above the fold, each on one line, with the list at full width', async () => {
    const docs = (await api('/api/tags', { method: 'POST', body: { name: 'Docs' } })) as {
      id: string
    }
    for (let i = 1; i <= 30; i++) {
      await api('/api/links', {
        method: 'POST',
        body: {
          url: `https://example.com/${i}/a-rather-long-path/that-goes-on?with=query&and=more`,
          title: `Team page ${i} with a longer title than most`,
          slug: `page-${i}`,
          ...(i % 3 === 0 && { tag_ids: [docs.id] }),
        },
      })
    }
    await page.goto('/links')
    await page.getByRole('row', { name: /Team page 30/ }).waitFor()
    const rows = await page
      .getByTestId('links')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().bottom))
    const aboveFold = rows.filter((bottom) => bottom <= 800).length
    console.log(
      `links above the fold at 1280×800: ${aboveFold} (row height ${Math.round(rows[1]! - rows[0]!)} px)`,
    )
    expect(aboveFold).toBeGreaterThanOrEqual(10)
    // The list is not beside a panel: the table takes the content's width.
    const [table, main] = await Promise.all([
      page.getByTestId('links').evaluate((element) => element.getBoundingClientRect().width),
      page.locator('main').evaluate((element) => element.getBoundingClientRect().width),
    ])
    expect(table / main).toBeGreaterThan(0.85)
    await checkAccessibility(page, 'links (full list)')
    // Where the page is, in the list's total.
    const position = page.getByTestId('links-position')
    await expect.poll(() => position.textContent()).toBe('1–25 of 30 links')
    await page.getByRole('link', { name: 'Next page' }).click()
    await expect.poll(() => position.textContent()).toBe('26–30 of 30 links')
    await page.getByRole('link', { name: 'First page' }).click()
    await expect.poll(() => position.textContent()).toBe('1–25 of 30 links')
  })

  it('searches as you type into the address, filters by the tag by name, and by scope', async () => {
    await page.getByLabel('Search title, URL or slug').fill('page 2')
    await page.waitForURL(/\?q=page\+2|\?q=page%202/)
    await page.getByRole('row', { name: /Team page 27/ }).waitFor()
    await expect.poll(() => page.getByRole('row', { name: /Team page 30 / }).count()).toBe(0)
    await page.getByLabel('Search title, URL or slug').fill('')
    await page.waitForURL(`${server.baseUrl}/links`)

    // The tag filter finds the tag as one types.
    const tagFilter = page.getByRole('combobox', { name: 'Tag', exact: true })
    await tagFilter.fill('doc')
    await page.getByRole('option', { name: 'Docs' }).click()
    await page.waitForURL('**/links?tag=Docs')
    await expect.poll(() => page.getByTestId('links').locator('tbody tr').count()).toBe(10)
    await expect
      .poll(() => page.getByTestId('links-position').textContent())
      .toBe('1–10 of 10 links')
    // An address with the name works on its own (shared, or after a reload).
    await page.goto('/links?tag=docs')
    await expect.poll(() => page.getByTestId('links').locator('tbody tr').count()).toBe(10)
    await expect.poll(() => tagFilter.inputValue()).toBe('Docs')
    await tagFilter.click()
    await page.getByRole('option', { name: 'Any tag' }).click()
    await page.waitForURL(`${server.baseUrl}/links`)
    await page.goto('/links?tag=Nope')
    await page.getByText('You have no tag named “Nope”.').waitFor()

    await page.goto('/links')
    // The list first: a segment clicked before the page has settled may be undone by its first
    // render.
    await page.getByTestId('links').locator('tbody tr').first().waitFor()
    await page.locator('.links-scope label', { hasText: /^Shared$/ }).click()
    await page.waitForURL('**/links?owner=organizations')
    await expect
      .poll(() => page.getByRole('radio', { name: 'Shared', exact: true }).isChecked())
      .toBe(true)
    await page.getByText('No link matches this search and these filters.').waitFor()
    await page.locator('.links-scope label', { hasText: 'All' }).click()
    await page.waitForURL(`${server.baseUrl}/links`)

    // The tags live in a panel opened on demand.
    await page.getByRole('button', { name: 'Tags' }).click()
    await page.getByRole('region', { name: 'Tags' }).getByRole('link', { name: /^Docs/ }).click()
    await page.waitForURL('**/links?tag=Docs')
    await checkAccessibility(page, 'links (tags panel open)')
    await page.getByRole('button', { name: 'Hide tags' }).click()
  })

  it('offers the row actions in one "⋯" menu: copy the go-link, edit, transfer, delete', async () => {
    await page.goto('/links?q=page-7')
    await page
      .getByRole('button', { name: 'Actions for Team page 7 with a longer title than most' })
      .click()
    await page.getByRole('menuitem', { name: 'Copy go/page-7' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `${server.baseUrl}/go/page-7`,
    )
    await page
      .getByRole('button', { name: 'Actions for Team page 7 with a longer title than most' })
      .click()
    expect(await page.getByRole('menuitem').allTextContents()).toEqual([
      'Copy go/page-7',
      'Edit',
      'Add to collection',
      'Transfer',
      'Delete',
    ])
    await checkAccessibility(page, 'links (row menu)')
    await page.keyboard.press('Escape')
  })
})

describe('the link dialog', () => {
  it('adds https://, fetches the title from the page, creates a tag inline, and keeps the URL readable', async () => {
    await page.goto('/links')
    await page.getByRole('button', { name: 'Create link' }).first().click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('URL').fill(`${pagesUrl}/report`)
    await dialog.getByLabel('Title').focus()
    expect(await dialog.getByLabel('URL').inputValue()).toBe(`https://${pagesUrl}/report`)
    // The local page speaks http: the person corrects the scheme, then asks for the title.
    await dialog.getByLabel('URL').fill(`http://${pagesUrl}/report`)
    await dialog.getByRole('button', { name: 'Fetch title' }).click()
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('Quarterly report – Q3')

    const tags = dialog.getByRole('combobox', { name: 'Tags' })
    await tags.fill('Reports')
    await page.getByRole('option', { name: 'Create tag “Reports”' }).waitFor()
    await checkAccessibility(page, 'link dialog (tag picker)')
    await tags.press('Enter')
    await expect.poll(() => tags.inputValue()).toBe('')
    await tags.fill('doc')
    await page.getByRole('listbox').getByRole('option', { name: 'Docs' }).click()
    // The chosen tags show as a list below; the suggestions close with Escape (the dialog stays).
    await tags.press('Escape')
    await dialog.getByRole('row', { name: 'Docs' }).waitFor()
    await dialog.getByRole('row', { name: 'Reports' }).waitFor()
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'detached' })
    const row = page.getByRole('row', { name: /Quarterly report – Q3/ })
    await row.waitFor()
    expect(await row.textContent()).toContain('Reports')
    expect(await row.textContent()).toContain('Docs')

    // IDN and Unicode paths: stored encoded, shown readable.
    const idn = (await api('/api/links', {
      method: 'POST',
      body: { url: 'https://bücher.example/Straße?q=ä', title: 'Bücher' },
    })) as { url: string }
    expect(idn.url).toBe('https://xn--bcher-kva.example/Stra%C3%9Fe?q=%C3%A4')
    await page.reload()
    const books = page.getByRole('row', { name: /Bücher/ })
    await books.waitFor()
    expect(await books.textContent()).toContain('bücher.example/Straße?q=ä')
    await books.getByRole('button', { name: 'Actions for Bücher' }).click()
    await page.getByRole('menuitem', { name: 'Edit' }).click()
    expect(await page.getByRole('dialog').getByLabel('URL').inputValue()).toBe(
      'https://bücher.example/Straße?q=ä',
    )
    await page.keyboard.press('Escape')
  })

  it('says a taken slug once, and the message goes when the slug changes', async () => {
    await page.getByRole('button', { name: 'Create link' }).first().click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('URL').fill('example.org/taken')
    await dialog.getByLabel('Slug').fill('page-1')
    await dialog
      .getByText('go/page-1 is already used by another of these links. Choose another slug.')
      .waitFor()
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await expect
      .poll(() => dialog.getByText('go/page-1 is already used', { exact: false }).count())
      .toBe(1)
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name))
      .toBe('slug')
    await dialog.getByLabel('Slug').fill('page-1x')
    await expect
      .poll(() => dialog.getByText('go/page-1 is already used', { exact: false }).count())
      .toBe(0)
    await dialog.getByText('go/page-1x is free.').waitFor()
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(
      ((await api('/api/links?q=page-1x')) as { items: { url: string }[] }).items[0]!.url,
    ).toBe('https://example.org/taken')
  })
})

describe('bulk actions', () => {
  it('selects several links, adds and removes a tag, and deletes them with the count in the confirmation', async () => {
    await page.goto('/links?q=Team+page+1')
    await page.getByRole('row', { name: /Team page 19/ }).waitFor()
    for (const n of [10, 11, 12])
      await page
        .getByRole('checkbox', { name: `Select Team page ${n} with a longer title than most` })
        .check()
    const bar = page.getByRole('region', { name: 'Selected links' })
    await bar.getByText('3 links selected').waitFor()
    await checkAccessibility(page, 'links (bulk selection)')

    await bar.getByRole('button', { name: 'Add tag' }).click()
    let dialog = page.getByRole('dialog', { name: 'Add a tag to 3 links' })
    await dialog.getByRole('combobox', { name: 'Tag', exact: true }).fill('Reports')
    await page.getByRole('option', { name: 'Reports', exact: true }).click()
    await dialog.getByRole('button', { name: 'Add tag to 3 links' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect
      .poll(() => page.getByRole('row', { name: /Team page 11/ }).textContent())
      .toContain('Reports')
    // The selection stays for the next action.
    await bar.getByRole('button', { name: 'Remove tag' }).click()
    dialog = page.getByRole('dialog', { name: 'Remove a tag from 3 links' })
    await dialog.getByRole('combobox', { name: 'Tag', exact: true }).fill('Reports')
    await page.getByRole('option', { name: 'Reports', exact: true }).click()
    await dialog.getByRole('button', { name: 'Remove tag from 3 links' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect
      .poll(() => page.getByRole('row', { name: /Team page 11/ }).textContent())
      .not.toContain('Reports')

    await bar.getByRole('button', { name: 'Delete' }).click()
    dialog = page.getByRole('alertdialog', { name: 'Delete 3 links?' })
    await dialog.getByText('The 3 links are removed for everyone who can see them').waitFor()
    await dialog.getByText('You can restore them under “Recently deleted” for 30 days.').waitFor()
    await checkAccessibility(page, 'links (bulk delete confirmation)')
    await dialog.getByRole('button', { name: 'Delete 3 links' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => page.getByRole('row', { name: /Team page 1[012] / }).count()).toBe(0)
    await expect.poll(() => bar.count()).toBe(0)
    const left = (await api('/api/links?q=Team+page+1&limit=100')) as { items: { title: string }[] }
    expect(
      left.items.map((link) => link.title).filter((title) => /page 1[012] /.test(title)),
    ).toEqual([])
  })
})

describe("a member's view", () => {
  let member: BrowserContext
  let memberPage: Page
  let organizationId = ''

  beforeAll(async () => {
    await api('/api/admin/users', { method: 'POST', token: adaJwt, body: MIA })
    const organization = (await api('/api/organizations', {
      method: 'POST',
      body: { name: 'Analytical Society' },
    })) as { id: string }
    organizationId = organization.id
    const invitation = (await api(`/api/organizations/${organizationId}/members`, {
      method: 'POST',
      body: { email: MIA.email, role: 'member' },
    })) as { id: string }
    const login = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: MIA.email, password: MIA.password }),
    })
    const miaJwt = ((await login.json()) as { token: string }).token
    await api(`/api/invitations/${invitation.id}/accept`, { method: 'POST', token: miaJwt })
    await api('/api/links', {
      method: 'POST',
      body: {
        url: 'https://society.example/',
        title: 'Society minutes',
        slug: 'minutes',
        organization_id: organizationId,
      },
    })
    await api('/api/links', {
      method: 'POST',
      body: {
        url: 'https://society.example/rules',
        title: 'Society rules',
        organization_id: organizationId,
      },
    })
    member = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
    })
    memberPage = await member.newPage()
    memberPage.on('pageerror', (error) => pageErrors.push(error.message))
    await signIn(memberPage, MIA)
  }, 60_000)

  afterAll(async () => member?.close())

  it('offers no Edit or Delete on an organization link the member may not change', async () => {
    await memberPage.getByRole('row', { name: /Society minutes/ }).waitFor()
    await memberPage.getByRole('button', { name: 'Actions for Society minutes' }).click()
    expect(await memberPage.getByRole('menuitem').allTextContents()).toEqual(['Copy go/minutes'])
    await memberPage.keyboard.press('Escape')
    // No slug and nothing to change: no menu at all.
    await expect
      .poll(() => memberPage.getByRole('button', { name: 'Actions for Society rules' }).count())
      .toBe(0)
    // Selected, such links may be tagged (the member's own labels), never shared or deleted.
    await memberPage.getByRole('checkbox', { name: 'Select Society minutes' }).check()
    const bar = memberPage.getByRole('region', { name: 'Selected links' })
    await bar.getByText('1 link selected').waitFor()
    expect(await bar.getByRole('button', { name: 'Delete' }).count()).toBe(0)
    expect(await bar.getByRole('button', { name: 'Share' }).count()).toBe(0)
    // … and the bar says why.
    expect(await bar.getByTestId('bulk-why').textContent()).toContain(
      'you may not change 1 of the selected links',
    )
    await checkAccessibility(memberPage, "links (a member's view)")
  })

  it('shows a refused action its message, with no dialog left open and no uncaught error', async () => {
    // A link of Mia's own that someone else deletes while her confirmation is open.
    const mine = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: MIA.email, password: MIA.password }),
    })
    const miaJwt = ((await mine.json()) as { token: string }).token
    const draft = (await api('/api/links', {
      method: 'POST',
      token: miaJwt,
      body: {
        url: 'https://mia.example/notes',
        title: 'Mia notes',
        organization_id: organizationId,
      },
    })) as {
      id: string
    }
    await memberPage.reload()
    await memberPage.getByRole('button', { name: 'Actions for Mia notes' }).click()
    await memberPage.getByRole('menuitem', { name: 'Delete' }).click()
    const confirm = memberPage.getByRole('alertdialog', { name: 'Delete link Mia notes?' })
    await confirm.waitFor()
    await api(`/api/links/${draft.id}`, { method: 'DELETE' })
    await confirm.getByRole('button', { name: 'Delete link' }).click()
    await confirm.waitFor({ state: 'detached' })
    await memberPage
      .getByRole('alert')
      .filter({ hasText: /could not find this/i })
      .waitFor()
    expect(pageErrors).toEqual([])
  })
})

describe('a phone, 390 px wide', () => {
  it('shows whole tag chips and "+N" for the rest, named on hover and focus, at 1280 and 390 px', async () => {
    const names = ['alpha', 'beta', 'comics', 'documentation', 'engineering', 'finance', 'growth']
    const ids: string[] = []
    for (const name of names)
      ids.push(((await api('/api/tags', { method: 'POST', body: { name } })) as { id: string }).id)
    await api('/api/links', {
      method: 'POST',
      body: { url: 'https://example.org/many-tags', title: 'Many tags', tag_ids: ids },
    })
    /** Every visible chip at its whole width (nothing cut), and the "+N" chip's text. */
    const chipsOf = async (target: Page) => {
      const row = target.getByRole('row', { name: /Many tags/ })
      await row.waitFor()
      return row
        .locator('.tags-cell .tag-chips:not(.tag-ruler) > li:not(.tag-more)')
        .evaluateAll((lis) =>
          lis.map((li) => ({
            text: li.textContent ?? '',
            cut: li.scrollWidth > li.clientWidth + 1,
            width: li.getBoundingClientRect().width,
          })),
        )
    }
    for (const width of [1280, 390]) {
      const view = await browser.newContext({
        baseURL: server.baseUrl,
        viewport: { width, height: 844 },
        locale: 'en-US',
      })
      const target = await view.newPage()
      await signIn(target, ADA)
      await target.getByLabel('Search title, URL or slug').fill('Many tags')
      const shown = await chipsOf(target)
      const button = target.getByRole('row', { name: /Many tags/ }).locator('.tag-more-button')
      const hidden = names.length - shown.length
      expect(hidden, `chips hidden at ${width} px`).toBeGreaterThan(0)
      expect(await button.textContent()).toBe(
        `+${hidden}${hidden} more tag${hidden === 1 ? '' : 's'}`,
      )
      expect(shown.map((chip) => chip.text)).toEqual(names.slice(0, shown.length))
      for (const chip of shown) {
        expect(chip.cut, `${chip.text} at ${width} px`).toBe(false)
        expect(chip.width).toBeGreaterThan(24)
      }
      // The rest is named on keyboard focus (and hover).
      await button.focus()
      const rest = target.getByRole('tooltip')
      await expect.poll(() => rest.isVisible()).toBe(true)
      expect(await rest.textContent()).toBe(names.slice(shown.length).join(', '))
      await checkAccessibility(target, `links with many tags at ${width} px`)
      await view.close()
    }
  })

  it('bounds and searches the tags panel, finds a tag in the filter, and keeps rows without a go-link quiet', async () => {
    for (let i = 1; i <= 80; i++)
      await api('/api/tags', {
        method: 'POST',
        body: { name: `imported-${String(i).padStart(2, '0')}` },
      })
    await api('/api/links', {
      method: 'POST',
      body: { url: 'https://imported.example/', title: 'Imported bookmark' },
    })
    const phone = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 390, height: 844 },
      locale: 'en-US',
      isMobile: true,
      hasTouch: true,
    })
    const phonePage = await phone.newPage()
    await signIn(phonePage, ADA)
    const row = phonePage.getByRole('row', { name: /Imported bookmark/ })
    await row.waitFor()
    // No go-link and no clicks: the go cell stays empty rather than saying so on every row.
    expect(await row.locator('.go-cell').textContent()).toBe('')
    expect(await phonePage.getByRole('row', { name: /Team page 30/ }).textContent()).toContain(
      'go/page-30',
    )

    await phonePage.getByRole('button', { name: 'Tags', exact: true }).click()
    const list = phonePage.locator('#tag-list')
    await list.getByRole('link', { name: /^imported-80/ }).waitFor()
    const box = await list.evaluate((element) => ({
      height: element.getBoundingClientRect().height,
      scrolls: element.scrollHeight > element.clientHeight,
    }))
    console.log(`tags panel list at 390 px with 80+ tags: ${Math.round(box.height)} px`)
    expect(box.height).toBeLessThanOrEqual(844 / 2 + 1)
    expect(box.scrolls).toBe(true)
    await phonePage.getByLabel('Find a tag').fill('imported-07')
    await expect.poll(() => list.locator('li').count()).toBe(1)
    await phonePage.getByText('1 tag contains this').waitFor()
    expect(await scrollsSideways(phonePage)).toBe(false)
    await checkAccessibility(phonePage, 'tags panel searched (phone)')
    await phonePage.getByLabel('Find a tag').fill('')

    const tagFilter = phonePage.getByRole('combobox', { name: 'Tag', exact: true })
    await tagFilter.fill('ported-42')
    await expect
      .poll(() => phonePage.getByRole('option').allTextContents())
      .toEqual(['imported-42'])
    await phonePage.getByRole('option', { name: 'imported-42' }).click()
    await phonePage.waitForURL('**/links?tag=imported-42')
    await phonePage.getByText('No link matches this search and these filters.').waitFor()
    await phone.close()
  })

  it('finds the 250th of more than 200 tags in the filter, the tags panel and the link dialog', async () => {
    const name = (i: number) => `many-${String(i).padStart(3, '0')}`
    for (let i = 1; i <= 250; i++)
      await api('/api/tags', { method: 'POST', body: { name: name(i) } })
    const tags = await api('/api/tags?limit=200')
    expect((tags.items as { name: string }[]).map((tag) => tag.name)).not.toContain(name(250))
    await page.goto('/links')
    const tagFilter = page.getByRole('combobox', { name: 'Tag', exact: true })
    await tagFilter.fill('any-25')
    await expect.poll(() => page.getByRole('option').allTextContents()).toEqual([name(250)])
    await page.getByRole('option', { name: name(250) }).click()
    await page.waitForURL(`**/links?tag=${name(250)}`)
    // Opened from its address, the tag past the first 200 is the filter, not an unknown name.
    await page.reload()
    await expect.poll(() => tagFilter.inputValue()).toBe(name(250))
    await page.getByText('No link matches this search and these filters.').waitFor()
    expect(await page.getByText(`You have no tag named “${name(250)}”.`).count()).toBe(0)

    await page.getByRole('button', { name: 'Tags', exact: true }).click()
    await page.getByText(/^The first 200 tags by name; find the others by name$/).waitFor()
    await page.getByLabel('Find a tag').fill(name(250))
    const list = page.locator('#tag-list')
    await expect.poll(() => list.locator('li').allTextContents()).toHaveLength(1)
    await list.getByRole('link', { name: new RegExp(`^${name(250)}`) }).waitFor()
    await page.getByText('1 tag contains this').waitFor()
    await checkAccessibility(page, 'tags panel past the first 200')
    await page.getByRole('button', { name: 'Hide tags' }).click()

    await page.getByRole('button', { name: 'Create link' }).first().click()
    const dialog = page.getByRole('dialog')
    const picker = dialog.getByRole('combobox', { name: 'Tags' })
    await picker.fill(name(250))
    await page.getByRole('option', { name: name(250), exact: true }).click()
    // The chosen tag shows in the list below once the suggestions close.
    await picker.press('Escape')
    await dialog.getByRole('row', { name: name(250) }).waitFor()
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')

    // The command palette finds it too.
    await page.keyboard.press('Control+k')
    await page.keyboard.type(name(250))
    await page.getByRole('menuitem', { name: name(250) }).waitFor()
    await page.keyboard.press('Escape')
  })

  it('never scrolls sideways, however long the names and URLs; the whole text stays readable', async () => {
    const long = 'A'.repeat(100)
    await api('/api/links', {
      method: 'POST',
      body: { url: `https://example.net/${'x'.repeat(300)}`, title: long, slug: 's'.repeat(64) },
    })
    await api('/api/tags', { method: 'POST', body: { name: 'T'.repeat(64) } })
    const phone = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 390, height: 844 },
      locale: 'en-US',
      isMobile: true,
      hasTouch: true,
    })
    const phonePage = await phone.newPage()
    await signIn(phonePage, ADA)
    await phonePage.getByRole('row', { name: new RegExp(long) }).waitFor()
    expect(await scrollsSideways(phonePage)).toBe(false)
    // Wrapped, not cut: the title's whole text is on screen within the window's width.
    const box = await phonePage.getByRole('link', { name: long }).boundingBox()
    expect(box!.x + box!.width).toBeLessThanOrEqual(390)
    await checkAccessibility(phonePage, 'links (phone)')
    await phonePage.getByRole('button', { name: 'Tags', exact: true }).click()
    expect(await scrollsSideways(phonePage)).toBe(false)
    await phonePage.getByRole('button', { name: 'Create link' }).first().click()
    await phonePage.getByRole('dialog').getByLabel('URL').waitFor()
    expect(await scrollsSideways(phonePage)).toBe(false)
    await phone.close()
  })
})

describe('in German', () => {
  it('says the new things in German', async () => {
    await api('/api/users/me', { method: 'PATCH', body: { language: 'de' } })
    await page.goto('/links')
    await page.getByRole('radio', { name: 'Meine' }).waitFor()
    await page.getByRole('checkbox', { name: /^Team page 29 .* auswählen$/ }).check()
    await page
      .getByRole('region', { name: 'Ausgewählte Links' })
      .getByText('1 Link ausgewählt')
      .waitFor()
    await checkAccessibility(page, 'links (de, selection)')
    await expect
      .poll(() => page.getByTestId('links-position').textContent())
      .toMatch(/^1–25 von \d+ Links$/)
    await page
      .getByRole('region', { name: 'Ausgewählte Links' })
      .getByRole('button', { name: 'Löschen' })
      .click()
    await page
      .getByRole('alertdialog')
      .getByText('Sie können ihn 30 Tage lang unter „Zuletzt gelöscht“ wiederherstellen.')
      .waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Schlagwörter', exact: true }).click()
    await page.getByLabel('Schlagwort suchen').fill('imported-1')
    await page.getByText('10 Schlagwörter enthalten dies').waitFor()
    await page.getByRole('button', { name: 'Schlagwörter ausblenden' }).click()
    await page.getByRole('button', { name: 'Link anlegen' }).first().click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('button', { name: 'Titel abrufen' }).waitFor()
    await dialog.getByRole('combobox', { name: 'Schlagwörter' }).fill('Neu')
    await page.getByRole('option', { name: 'Schlagwort „Neu“ anlegen' }).waitFor()
    await checkAccessibility(page, 'link dialog (de)')
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')
    await page.goto('/links/import-export')
    await page.getByLabel('Ordner zusätzlich zu Schlagwörtern machen').waitFor()
    expect(await page.getByLabel('Ordner zusätzlich zu Schlagwörtern machen').isChecked()).toBe(
      false,
    )
    // The file picker speaks German in an English browser: its button and "no file" are the
    // console's; a click on the button opens the browser's file chooser, and the name shows.
    const picker = page.locator('.file-picker')
    await picker.getByText('Keine Datei ausgewählt').waitFor()
    // A click where the button is drawn (the transparent input above it receives it; `force`:
    // the words are aria-hidden and covered by the input, as they are meant to be).
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      picker.getByText('Datei auswählen', { exact: true }).click({ force: true }),
    ])
    // The import's preview, in German: the new tags named before anything is written.
    await chooser.setFiles({
      name: 'neu.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify([{ url: 'https://vorschau.example/', tags: ['Vorschau', 'vorschaus'] }]),
      ),
    })
    await picker.getByText('neu.json').waitFor()
    expect(await picker.getByText('Keine Datei ausgewählt').count()).toBe(0)
    expect(await page.getByLabel('Lesezeichendatei').getAttribute('type')).toBe('file')
    await page.getByRole('button', { name: 'Lesezeichen importieren' }).click()
    const preview = page.getByRole('region', { name: 'Vor dem Import' })
    expect(await preview.locator('p').textContent()).toBe('1 Link, 1 neues Schlagwort: Vorschau.')
    await checkAccessibility(page, 'import preview (de)')
    await preview.getByRole('button', { name: 'Ohne neue Schlagwörter importieren' }).click()
    const report = page.getByTestId('import-report')
    await report.getByText('1 Link importiert.').waitFor()
    await report.getByRole('heading', { name: '1 neues Schlagwort ausgelassen' }).waitFor()
    expect((await api('/api/tags?q=vorschau')).items).toEqual([])
    await api('/api/users/me', { method: 'PATCH', body: { language: 'en' } })
  })
})

describe('a list of more than 1,000 links', () => {
  it('says where the page is in "1,000+": the count stops there', async () => {
    const links = Array.from({ length: 1001 }, (_, i) => ({
      url: `https://many.example/${i}`,
      title: `Many page ${i}`,
    }))
    const content = JSON.stringify({ format: 'switchboard-links', version: 1, links })
    await api('/api/links/import', { method: 'POST', body: { format: 'json', content } })
    await page.goto('/links')
    await expect
      .poll(() => page.getByTestId('links-position').textContent())
      .toBe('1–25 of 1,000+ links')
    await page.goto('/links?q=many+page+1')
    await expect
      .poll(() => page.getByTestId('links-position').textContent())
      .toBe('1–25 of 112 links')
  })
})
