/**
 * Tags past the first 200 on the Links page in real Chromium against the built server: a row names
 * a tag beyond the tag list's first page (its name asked by id, once per page of links, then kept),
 * and so does the link's dialog; the bulk actions' tag box finds such a tag by name and applies it
 * to two links. Axe on the bulk dialog with its combobox.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as checks from './checks.ts'
import {
  signedInLinksPage,
  startConsoleAs,
  type ArrangingApi,
  type FileBrowser,
  type ConsoleServer,
} from './harness.ts'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const TAGS = 250
const tagName = (i: number) => `topic-${String(i).padStart(3, '0')}`

let server: ConsoleServer
let browser: FileBrowser
let page: Page
let api: ArrangingApi
let last: { id: string }
/** The console's requests for tag names by id (GET /api/tags?ids=). */
const byIdRequests: string[] = []
const pageErrors: string[] = []

beforeAll(async () => {
  ;({ server, browser, api } = await startConsoleAs(ADA))
  await api('/api/admin/checklist', { method: 'PUT', body: { dismissed: true } })
  for (let i = 1; i <= TAGS; i++)
    last = (await api('/api/tags', { method: 'POST', body: { name: tagName(i) } })) as {
      id: string
    }
  const first = await api('/api/tags?limit=200')
  expect((first.items as { name: string }[]).map((tag) => tag.name)).not.toContain(tagName(TAGS))
  await api('/api/links', {
    method: 'POST',
    body: { url: 'https://far.example/', title: 'Far tagged', tag_ids: [last.id] },
  })
  for (const title of ['Bulk one', 'Bulk two'])
    await api('/api/links', {
      method: 'POST',
      body: { url: `https://bulk.example/${title.split(' ')[1]}`, title },
    })
  ;({ page } = await signedInLinksPage(server, browser, ADA, {
    errors: pageErrors,
    watch: (watched) =>
      watched.on('request', (request) => {
        if (/\/api\/tags\?(.*&)?ids=/.test(request.url())) byIdRequests.push(request.url())
      }),
  }))
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

const chipsOf = (title: string) =>
  page
    .getByRole('row', { name: new RegExp(title) })
    .locator('.tags-cell .tag-chips:not(.tag-ruler) > li')
    .allTextContents()

describe('tags past the first 200', () => {
  it('names the 250th tag in its link’s row, asked by id once for the page', async () => {
    await page.getByRole('row', { name: /Far tagged/ }).waitFor()
    await expect.poll(() => chipsOf('Far tagged')).toEqual([tagName(TAGS)])
    expect(byIdRequests).toHaveLength(1)
    expect(new URL(byIdRequests[0]!).searchParams.get('ids')).toBe(last.id)
    // Back on a page seen before, the name is at hand: no second request.
    const search = page.getByLabel('Search title, URL or slug')
    await search.fill('Bulk')
    await page.waitForURL('**/links?q=Bulk')
    await search.fill('')
    await page.waitForURL(`${server.baseUrl}/links`)
    await expect.poll(() => chipsOf('Far tagged')).toEqual([tagName(TAGS)])
    expect(byIdRequests).toHaveLength(1)
    // The link's dialog lists it among the chosen tags.
    await page.getByRole('button', { name: 'Actions for Far tagged' }).click()
    await page.getByRole('menuitem', { name: 'Edit' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('row', { name: tagName(TAGS) }).waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
  })

  it('applies the 250th tag to two links through the bulk actions’ tag box', async () => {
    for (const title of ['Bulk one', 'Bulk two'])
      await page.getByRole('checkbox', { name: `Select ${title}` }).check()
    const bar = page.getByRole('region', { name: 'Selected links' })
    await bar.getByText('2 links selected').waitFor()
    await bar.getByRole('button', { name: 'Add tag' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add a tag to 2 links' })
    const box = dialog.getByRole('combobox', { name: 'Tag', exact: true })
    await box.fill('pic-250')
    await expect.poll(() => page.getByRole('option').allTextContents()).toEqual([tagName(TAGS)])
    await page.waitForLoadState('networkidle')
    await checks.checkAccessibility(page, 'bulk add tag (combobox)')
    await page.getByRole('option', { name: tagName(TAGS) }).click()
    await expect.poll(() => box.inputValue()).toBe(tagName(TAGS))
    await dialog.getByRole('button', { name: 'Add tag to 2 links' }).click()
    await dialog.waitFor({ state: 'detached' })
    for (const title of ['Bulk one', 'Bulk two'])
      await expect.poll(() => chipsOf(title)).toEqual([tagName(TAGS)])
    const tagged = (await api(`/api/links?tag_id=${last.id}`)) as {
      items: Array<{ title: string }>
    }
    expect(tagged.items.map((link) => link.title).sort()).toEqual([
      'Bulk one',
      'Bulk two',
      'Far tagged',
    ])
    expect(pageErrors).toEqual([])
  })
})
