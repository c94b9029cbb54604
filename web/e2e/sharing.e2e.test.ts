/**
 * Collections, pins and team sharing on the Links page, in real Chromium against the built server
 * (one server, one browser): a collection created in its panel, links added from a row's menu,
 * ordered from the keyboard and filtering the list in that order; a pinned link first on the page
 * and in the palette, which also finds the collection; a link shared with a team seen by a member,
 * read-only, "Shared by" the team, in German, at 390 px without sideways scrolling. Axe on each
 * view, in both themes.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  arrangingApi,
  createTeamWithMember,
  SIGN_IN_LABELS,
  signedInLinksPage,
  signIn,
  startConsoleAs,
  type ArrangingApi,
  type FileBrowser,
  type ConsoleServer,
} from './harness.ts'
import * as checks from './checks.ts'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const MIA = { name: 'Mia Member', email: 'mia@example.com', password: 'member-password-2024' }
const TITLES = ['Alpha runbook', 'Beta dashboard', 'Gamma wiki'] as const

let server: ConsoleServer
let browser: FileBrowser
let page: Page
let api: ArrangingApi
let miaApi: ArrangingApi
const linkIds: Record<string, string> = {}
const pageErrors: string[] = []

/** The titles of the Links table's rows, top to bottom. */
function rowTitles(target: Page): Promise<string[]> {
  return target.getByTestId('links').locator('tbody tr .link-title').allTextContents()
}

async function scrollsSideways(target: Page): Promise<boolean> {
  return target.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
  )
}

beforeAll(async () => {
  ;({ server, browser, api } = await startConsoleAs(ADA))
  await api('/api/admin/checklist', { method: 'PUT', body: { dismissed: true } })
  await createTeamWithMember(api, MIA, 'Platform')
  for (const [index, title] of TITLES.entries()) {
    const link = await api('/api/links', {
      method: 'POST',
      body: {
        url: `https://example.com/${title.split(' ')[0]!.toLowerCase()}`,
        title,
        slug: `slug-${index}`,
      },
    })
    linkIds[title] = link.id as string
  }
  const login = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: MIA.email, password: MIA.password }),
  })
  miaApi = arrangingApi(server, ((await login.json()) as { token: string }).token)
  await miaApi('/api/users/me', { method: 'PATCH', body: { language: 'de' } })

  ;({ page } = await signedInLinksPage(server, browser, ADA, {
    errors: pageErrors,
    defaultTimeout: 10_000,
  }))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('collections', () => {
  let collectionId = ''

  it('are created in the panel, filled from a row’s menu, ordered by keyboard and filter the list', async () => {
    await page.getByTestId('links').locator('tbody tr').first().waitFor()
    await page.getByRole('button', { name: 'Collections', exact: true }).click()
    const panel = page.getByRole('region', { name: 'Collections' })
    await panel.getByLabel('New collection').fill('Onboarding')
    await panel.getByRole('button', { name: 'Create collection' }).click()
    await panel.getByRole('link', { name: /^Onboarding/ }).waitFor()
    const listed = (await api('/api/collections')).items as Array<{ id: string; name: string }>
    collectionId = listed.find((collection) => collection.name === 'Onboarding')!.id

    for (const title of ['Alpha runbook', 'Beta dashboard']) {
      await page.getByRole('button', { name: `Actions for ${title}` }).click()
      await page.getByRole('menuitem', { name: 'Add to collection' }).click()
      const dialog = page.getByRole('dialog', { name: `Add ${title} to a collection` })
      await dialog.getByLabel('Collection').selectOption({ label: 'Onboarding' })
      await dialog.getByRole('button', { name: 'Add to collection' }).click()
      await dialog.waitFor({ state: 'detached' })
    }
    await panel.getByRole('link', { name: /^Onboarding.*2 links/ }).waitFor()

    // Keyboard only: focus reaches "Move Beta dashboard up" and Enter moves it.
    await panel.getByRole('button', { name: 'Order the links of Onboarding' }).click()
    const order = page.getByRole('dialog', { name: 'Order the links of Onboarding' })
    await expect
      .poll(() => order.locator('.order-name').allTextContents())
      .toEqual(['Alpha runbook', 'Beta dashboard'])
    await order.getByRole('button', { name: 'Move Beta dashboard up' }).focus()
    await page.keyboard.press('Enter')
    await expect
      .poll(() => order.locator('.order-name').allTextContents())
      .toEqual(['Beta dashboard', 'Alpha runbook'])
    // At the top, its Move up is off: focus stays with the link, on its Move down.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Move Beta dashboard down')
    await expect
      .poll(async () => {
        const { items } = await api(`/api/links?collection_id=${collectionId}`)
        return (items as Array<{ title: string }>).map((link) => link.title)
      })
      .toEqual(['Beta dashboard', 'Alpha runbook'])
    await order.getByRole('button', { name: 'Done' }).click()

    await panel.getByRole('link', { name: /^Onboarding/ }).click()
    await page.waitForURL(`**/links?collection=${collectionId}`)
    await expect.poll(() => rowTitles(page)).toEqual(['Beta dashboard', 'Alpha runbook'])
    await page.waitForLoadState('networkidle')
    await checks.checkAccessibility(page, 'links filtered by a collection')
  }, 120_000)

  it('a pinned link comes first on the page and in the palette, which finds collections', async () => {
    await page.goto('/links')
    await expect
      .poll(() => rowTitles(page))
      .toEqual(['Gamma wiki', 'Beta dashboard', 'Alpha runbook'])
    const pin = page
      .getByRole('row', { name: /Alpha runbook/ })
      .getByRole('button', { name: 'Pin' })
    expect(await pin.getAttribute('aria-pressed')).toBe('false')
    await pin.click()
    await expect
      .poll(() => rowTitles(page))
      .toEqual(['Alpha runbook', 'Gamma wiki', 'Beta dashboard'])
    expect(
      await page
        .getByRole('row', { name: /Alpha runbook/ })
        .getByRole('button', { name: 'Unpin' })
        .getAttribute('aria-pressed'),
    ).toBe('true')

    await page.keyboard.press('Control+k')
    await page.keyboard.type('example.com')
    // The first section is the links found, the pinned one first.
    await expect
      .poll(() => page.locator('.palette-section').first().getByRole('menuitem').allTextContents())
      .toEqual([
        expect.stringContaining('Alpha runbook'),
        expect.stringContaining('Gamma wiki'),
        expect.stringContaining('Beta dashboard'),
      ])
    await page.getByRole('combobox', { name: /Search links/ }).fill('Onboard')
    // The links found for the earlier text stay until the new search answers, then their section
    // goes and the collection moves up: clicked before that, the click lands where it was.
    await expect
      .poll(() => page.locator('.palette-header').first().textContent())
      .toBe('Collections')
    await page.getByRole('menuitem', { name: /Onboarding/ }).click()
    await page.waitForURL(`**/links?collection=*`)
    await expect.poll(() => rowTitles(page)).toEqual(['Beta dashboard', 'Alpha runbook'])
  }, 60_000)
})

describe('a link shared with a team', () => {
  it('the owner shares it in the link dialog', async () => {
    await page.goto('/links')
    await page.getByRole('button', { name: 'Actions for Gamma wiki' }).click()
    await page.getByRole('menuitem', { name: 'Edit' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('group', { name: 'Share with teams' }).getByLabel('Platform').check()
    await dialog.getByRole('button', { name: 'Save link' }).click()
    await dialog.waitFor({ state: 'detached' })
    const link = await api(`/api/links/${linkIds['Gamma wiki']!}`)
    expect(link.team_ids).toHaveLength(1)
    expect(pageErrors).toEqual([])
  }, 60_000)

  it('a member sees it read-only, “Shared by” the team, in German, at 390 px', async () => {
    const member = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 390, height: 844 },
      locale: 'de-DE',
      colorScheme: 'dark',
    })
    const phone = await member.newPage()
    phone.setDefaultTimeout(10_000)
    await phone.goto('/login')
    await signIn(phone, MIA, SIGN_IN_LABELS.de)
    await phone.waitForURL(`${server.baseUrl}/links`)
    const row = phone.getByRole('row', { name: /Gamma wiki/ })
    await row.getByText('Geteilt von Platform').waitFor()
    await row.getByRole('button', { name: 'Aktionen für Gamma wiki' }).click()
    const offered = await phone.getByRole('menuitem').allTextContents()
    expect(offered.some((item) => item.startsWith('go/slug-2'))).toBe(true)
    expect(offered).not.toContain('Bearbeiten')
    expect(offered).not.toContain('Löschen')
    await phone.keyboard.press('Escape')
    // Read-only at the API too: the member may not change it.
    await expect(
      miaApi(`/api/links/${linkIds['Gamma wiki']!}`, { method: 'PATCH', body: { title: 'x' } }),
    ).rejects.toThrow(/403/)

    await phone.locator('.links-scope label', { hasText: 'Mit mir geteilt' }).click()
    await phone.waitForURL('**/links?owner=shared')
    await expect.poll(() => rowTitles(phone)).toEqual(['Gamma wiki'])

    await phone.getByRole('button', { name: 'Sammlungen', exact: true }).click()
    const panel = phone.getByRole('region', { name: 'Sammlungen' })
    await panel.getByLabel('Neue Sammlung').fill('Lesestoff')
    await panel.getByRole('button', { name: 'Sammlung anlegen' }).click()
    await panel.getByRole('link', { name: /^Lesestoff.*0 Links/ }).waitFor()
    await panel.getByRole('button', { name: 'Reihenfolge der Links in Lesestoff' }).waitFor()
    await panel.getByRole('button', { name: 'Sammlung Lesestoff bearbeiten' }).waitFor()
    await panel.getByRole('button', { name: 'Sammlung Lesestoff löschen' }).waitFor()
    expect(await scrollsSideways(phone)).toBe(false)
    await phone.waitForLoadState('networkidle')
    await checks.checkAccessibility(phone, 'German Links page with collections at 390 px')
    await member.close()
  }, 120_000)
})
