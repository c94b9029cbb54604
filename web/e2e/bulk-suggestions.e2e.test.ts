/**
 * "Suggest tags" on the Links page in real Chromium against the built server and the
 * OpenAI-compatible stand-in: selected links without tags get their suggestions for review (new
 * tags marked), links with tags are left out in one line, an unmarked chip is not applied and the
 * marked ones are; the dialog in German at a phone's width; axe on the dialog.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../test/helpers/openai-stand-in.ts'
import { AI_API_KEY } from '../../test/helpers/secret-scan.ts'
import * as checks from './checks.ts'
import {
  signedInLinksPage,
  startConsoleAs,
  type ArrangingApi,
  type FileBrowser,
  type ConsoleServer,
} from './harness.ts'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }

let server: ConsoleServer
let provider: OpenAiStandIn
let pages: Server
let pagesUrl = ''
let browser: FileBrowser
let page: Page
let api: ArrangingApi

interface LinkJson {
  id: string
  tag_ids: string[]
}

beforeAll(async () => {
  // Every page is titled after its path: /alpha → "alpha handbook".
  pages = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(`<html><head><title>${request.url?.slice(1)} handbook</title></head></html>`)
  })
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  provider = await startOpenAiStandIn(AI_API_KEY)
  // The model offers the person's tag "Reading" and one named after the page: "alpha" → Alpha.
  provider.chat = (request) => {
    const facts = JSON.parse(request.body.messages!.at(-1)!.content) as { page_title: string }
    const word = facts.page_title.split(' ')[0]!
    const topic = word.charAt(0).toUpperCase() + word.slice(1)
    return {
      status: 200,
      content: JSON.stringify({ title: facts.page_title, slug: word, tags: ['reading', topic] }),
    }
  }
  ;({ server, browser, api } = await startConsoleAs(ADA))
  await api('/api/admin/settings/ai', {
    method: 'PUT',
    body: {
      enabled: true,
      base_url: provider.baseUrl,
      model: 'gpt-test',
      api_key: AI_API_KEY,
      allow_private_network: true,
    },
  })
  const reading = await api('/api/tags', { method: 'POST', body: { name: 'Reading' } })
  for (const name of ['alpha', 'beta', 'gamma', 'delta'])
    await api('/api/links', { method: 'POST', body: { url: `${pagesUrl}/${name}`, title: name } })
  await api('/api/links', {
    method: 'POST',
    body: { url: `${pagesUrl}/tagged`, title: 'tagged', tag_ids: [reading.id] },
  })
  ;({ page } = await signedInLinksPage(server, browser, ADA))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await provider?.close()
  pages?.closeAllConnections()
  await new Promise((resolve) => pages?.close(resolve))
})

async function tagNamesOf(title: string): Promise<string[]> {
  const tags = (await api('/api/tags?limit=200')) as { items: Array<{ id: string; name: string }> }
  const links = (await api(`/api/links?q=${title}`)) as {
    items: Array<LinkJson & { title: string }>
  }
  const link = links.items.find((item) => item.title === title)!
  return link.tag_ids.map((id) => tags.items.find((tag) => tag.id === id)!.name).sort()
}

async function select(titles: string[]): Promise<void> {
  await page.goto('/links')
  for (const title of titles) await page.getByRole('checkbox', { name: `Select ${title}` }).check()
}

describe('Suggest tags for selected links', () => {
  it('shows the suggestions for review; only the tags left marked are applied', async () => {
    await select(['alpha', 'beta', 'tagged'])
    const bar = page.getByRole('region', { name: 'Selected links' })
    await bar.getByRole('button', { name: 'Suggest tags' }).click()
    const dialog = page.getByRole('dialog', { name: /Suggested tags for 2 links/ })
    await dialog.getByText('1 selected link already has tags and is left out.').waitFor()
    const alpha = dialog.getByRole('list', { name: 'alpha' })
    const beta = dialog.getByRole('list', { name: 'beta' })
    await alpha.getByRole('button', { name: /^Tag: Alpha/ }).waitFor()
    // The existing tag in its own spelling, the new one marked new; all marked, nothing applied.
    expect(await alpha.getByRole('button').allTextContents()).toEqual([
      'Tag: Reading',
      'Tag: Alphanew',
    ])
    expect(await beta.getByRole('button').allTextContents()).toEqual([
      'Tag: Reading',
      'Tag: Betanew',
    ])
    for (const chip of await dialog.locator('.chip').all())
      expect(await chip.getAttribute('aria-pressed')).toBe('true')
    expect(await tagNamesOf('alpha')).toEqual([])
    await page.waitForLoadState('networkidle')
    await checks.checkAccessibility(page, 'suggest tags dialog')

    const leftOut = alpha.getByRole('button', { name: 'Tag: Reading' })
    await leftOut.click()
    expect(await leftOut.getAttribute('aria-pressed')).toBe('false')
    await dialog.getByRole('button', { name: 'Apply 3 tags' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await tagNamesOf('alpha')).toEqual(['Alpha'])
    expect(await tagNamesOf('beta')).toEqual(['Beta', 'Reading'])
    expect(await tagNamesOf('tagged')).toEqual(['Reading'])
    await expect.poll(() => page.getByRole('row', { name: /beta/ }).textContent()).toContain('Beta')
  })

  it('says it in German, and fits a phone 390 px wide', async () => {
    await api('/api/users/me', { method: 'PATCH', body: { language: 'de' } })
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      await page.goto('/links')
      await page.getByRole('checkbox', { name: 'gamma auswählen' }).waitFor()
      for (const title of ['gamma', 'delta', 'alpha'])
        await page.getByRole('checkbox', { name: `${title} auswählen` }).check()
      await page
        .getByRole('region', { name: 'Ausgewählte Links' })
        .getByRole('button', { name: 'Schlagwörter vorschlagen' })
        .click()
      const dialog = page.getByRole('dialog', {
        name: /Vorgeschlagene Schlagwörter für 2 Links/,
      })
      await dialog
        .getByText('1 ausgewählter Link hat schon Schlagwörter und wird ausgelassen.')
        .waitFor()
      await dialog.getByRole('button', { name: '4 Schlagwörter übernehmen' }).waitFor()
      await dialog.getByText('Noch ist nichts übernommen.', { exact: false }).waitFor()
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
        ),
      ).toBe(true)
      const box = (await dialog.boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(390)
      await dialog.getByRole('button', { name: 'Abbrechen' }).click()
      await dialog.waitFor({ state: 'detached' })
      expect(await tagNamesOf('gamma')).toEqual([])
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
      await api('/api/users/me', { method: 'PATCH', body: { language: 'en' } })
    }
  })
})
