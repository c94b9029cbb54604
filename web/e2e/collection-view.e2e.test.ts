/**
 * A collection's order and the Links page's layout around collections and pins, in real Chromium
 * against the built server: links ordered by dragging them in the Order dialog and from the
 * keyboard alone, each order the server's after a reload; at 1280 and 390 px, the Collections
 * panel's heading clear of the sticky top bar when scrolled to or reached by the keyboard, and
 * the pin toggle in its own place on every row — also on a read-only row that has no "⋯" menu.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTeamWithMember,
  signedInLinksPage,
  startConsoleAs,
  type ArrangingApi,
  type FileBrowser,
  type ConsoleServer,
} from './harness.ts'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const MIA = { name: 'Mia Member', email: 'mia@example.com', password: 'member-password-2024' }
const ORDERED = ['Alpha runbook', 'Beta dashboard', 'Gamma wiki'] as const
/** Enough rows that the page scrolls below the panel at either width. */
const FILLER = 14
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const

let server: ConsoleServer
let browser: FileBrowser
let api: ArrangingApi
let collectionId = ''
const linkIds = new Map<string, string>()
const pageErrors: string[] = []

const signedInPage = (who: typeof ADA, viewport: { width: number; height: number }) =>
  signedInLinksPage(server, browser, who, { viewport, errors: pageErrors, defaultTimeout: 10_000 })

beforeAll(async () => {
  ;({ server, browser, api } = await startConsoleAs(ADA))
  await api('/api/admin/checklist', { method: 'PUT', body: { dismissed: true } })
  const { team } = await createTeamWithMember(api, MIA, 'Platform')
  for (const [index, title] of ORDERED.entries()) {
    const link = await api('/api/links', {
      method: 'POST',
      body: { url: `https://example.com/${index}`, title, slug: `ordered-${index}` },
    })
    linkIds.set(title, link.id as string)
  }
  for (let n = 0; n < FILLER; n++)
    await api('/api/links', {
      method: 'POST',
      body: { url: `https://filler.example/${n}`, title: `Filler ${n}` },
    })
  // Shared with Mia's team: one with a go-link (her row offers "⋯ Copy go-link"), one without
  // (read-only, nothing to offer: no menu on her row).
  await api('/api/links', {
    method: 'POST',
    body: {
      url: 'https://shared.example/go',
      title: 'Shared go',
      slug: 'shared-go',
      team_ids: [team.id],
    },
  })
  await api('/api/links', {
    method: 'POST',
    body: { url: 'https://shared.example/plain', title: 'Shared plain', team_ids: [team.id] },
  })
  const collection = await api('/api/collections', { method: 'POST', body: { name: 'Onboarding' } })
  collectionId = collection.id as string
  await api(`/api/collections/${collectionId}/links`, {
    method: 'PUT',
    body: { link_ids: ORDERED.map((title) => linkIds.get(title)!) },
  })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

async function serverOrder(): Promise<string[]> {
  const { items } = await api(`/api/links?collection_id=${collectionId}`)
  return (items as Array<{ title: string }>).map((link) => link.title)
}

/** Opens the Collections panel and the Order dialog of "Onboarding". */
async function openOrderDialog(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Collections', exact: true }).click()
  const panel = page.getByRole('region', { name: 'Collections' })
  await panel.getByRole('button', { name: 'Order the links of Onboarding' }).click()
  return page.getByRole('dialog', { name: 'Order the links of Onboarding' })
}

const shownOrder = (dialog: Locator) => dialog.locator('.order-name').allTextContents()

describe('ordering a collection’s links', () => {
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    ;({ context, page } = await signedInPage(ADA, WIDTHS[0]))
  }, 60_000)

  afterAll(async () => {
    await context?.close()
  })

  it('by dragging a link onto another’s place: saved, and so after a reload', async () => {
    const dialog = await openOrderDialog(page)
    await expect.poll(() => shownOrder(dialog)).toEqual([...ORDERED])
    const item = (title: string) => dialog.locator('li', { hasText: title })
    await item('Gamma wiki').dragTo(item('Alpha runbook'))
    await expect
      .poll(() => shownOrder(dialog))
      .toEqual(['Gamma wiki', 'Alpha runbook', 'Beta dashboard'])
    await expect.poll(serverOrder).toEqual(['Gamma wiki', 'Alpha runbook', 'Beta dashboard'])

    await page.reload()
    const reopened = await openOrderDialog(page)
    await expect
      .poll(() => shownOrder(reopened))
      .toEqual(['Gamma wiki', 'Alpha runbook', 'Beta dashboard'])
    await reopened.getByRole('button', { name: 'Done' }).click()
    expect(pageErrors).toEqual([])
  }, 60_000)

  it('from the keyboard alone: Tab to a link’s Move down, Space; saved, and so after a reload', async () => {
    await page.goto('/links')
    const dialog = await openOrderDialog(page)
    await expect
      .poll(() => shownOrder(dialog))
      .toEqual(['Gamma wiki', 'Alpha runbook', 'Beta dashboard'])
    const focused = () =>
      page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '')
    for (let presses = 0; presses < 20; presses++) {
      if ((await focused()) === 'Move Gamma wiki down') break
      await page.keyboard.press('Tab')
    }
    expect(await focused()).toBe('Move Gamma wiki down')
    await page.keyboard.press('Space')
    await expect
      .poll(() => shownOrder(dialog))
      .toEqual(['Alpha runbook', 'Gamma wiki', 'Beta dashboard'])
    // Focus stays with the moved link.
    await expect.poll(focused).toBe('Move Gamma wiki down')
    await page.keyboard.press('Enter')
    await expect.poll(serverOrder).toEqual(['Alpha runbook', 'Beta dashboard', 'Gamma wiki'])

    await page.reload()
    await page.getByRole('button', { name: 'Collections', exact: true }).click()
    await page
      .getByRole('region', { name: 'Collections' })
      .getByRole('link', { name: /^Onboarding/ })
      .click()
    await page.waitForURL(`**/links?collection=${collectionId}`)
    await expect
      .poll(() => page.getByTestId('links').locator('tbody tr .link-title').allTextContents())
      .toEqual(['Alpha runbook', 'Beta dashboard', 'Gamma wiki'])
    expect(pageErrors).toEqual([])
  }, 60_000)
})

type Box = { x: number; y: number; width: number; height: number }

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox()
  if (found === null) throw new Error('not rendered')
  return found
}

/** How far the top bar covers the element's box, in px (0: not at all). */
async function coveredByTopBar(page: Page, element: Locator): Promise<number> {
  const bar = await box(page.locator('.topbar'))
  const shown = await box(element)
  return Math.max(0, bar.y + bar.height - shown.y)
}

describe.each(WIDTHS)('the Links page at $width px', (viewport) => {
  it('scrolls the Collections heading to below the top bar, not under it', async () => {
    const { context, page } = await signedInPage(ADA, viewport)
    await page.getByTestId('links').locator('tbody tr').first().waitFor()
    await page.getByRole('button', { name: 'Collections', exact: true }).click()
    const heading = page.getByRole('heading', { name: 'Collections', level: 2 })
    await heading.waitFor()
    // Scrolled to, as a link to the panel or a script does.
    await page.locator('#collections-panel').evaluate((panel) => panel.scrollIntoView())
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
    expect(await coveredByTopBar(page, heading)).toBe(0)
    // Reached by the keyboard from further down: the focused field comes into view below the bar.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight))
    await page.getByLabel('New collection').focus()
    expect(await coveredByTopBar(page, page.getByLabel('New collection'))).toBe(0)
    await context.close()
  }, 60_000)

  it('draws the pin in one place on every row, never in the menu’s', async () => {
    const { context, page } = await signedInPage(MIA, viewport)
    const row = (title: string) => page.getByRole('row', { name: new RegExp(title) })
    await row('Shared plain').waitFor()
    const pinOf = (title: string) => box(row(title).locator('.pin-toggle'))
    expect(
      await row('Shared plain')
        .getByRole('button', { name: /^Actions for/ })
        .count(),
    ).toBe(0)
    const menu = await box(row('Shared go').getByRole('button', { name: 'Actions for Shared go' }))
    const [withMenu, withoutMenu] = [await pinOf('Shared go'), await pinOf('Shared plain')]
    expect(Math.abs(withoutMenu.x - withMenu.x)).toBeLessThanOrEqual(1)
    expect(withoutMenu.x + withoutMenu.width).toBeLessThanOrEqual(menu.x)
    // Clear of the link's own cell (the title never runs under the buttons), and in the window.
    const cell = await box(row('Shared plain').locator('td.link-cell'))
    expect(cell.x + cell.width).toBeLessThanOrEqual(withoutMenu.x + 1)
    expect(menu.x + menu.width).toBeLessThanOrEqual(viewport.width)
    await context.close()
  }, 60_000)
})
