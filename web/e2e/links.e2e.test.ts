/**
 * The Links area in real Chromium against the built server: create, search and edit a
 * link with tags and follow its go-link; find it again from the command palette by keyboard only;
 * an ambiguous slug's chooser with "remember" in the preferences page, removed and restored;
 * import of a bookmark file and export. Every new page is checked by axe-core in both themes and
 * both languages.
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
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
import { firefoxExport } from '../../test/helpers/bookmark-files.ts'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }

let server: ConsoleServer
let browser: FileBrowser
let context: BrowserContext
let page: Page
/** Arranges things through the API as Ada, with a token of every permission. */
let api: ArrangingApi
const cspViolations: string[] = []

const BOOKMARKS = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><A HREF="https://status.example.com/" SHORTCUTURL="status" TAGS="ops">Status page</A>
    <DT><H3>Team wiki</H3>
    <DL><p>
        <DT><A HREF="https://runbooks.example.com/" ADD_DATE="1600000000">Runbooks</A>
    </DL><p>
    <DT><A HREF="javascript:void(0)">A bookmarklet</A>
</DL><p>
`

/** The shared checks, on this file's one page; axe once the page's requests have settled. */
const expectHeading = (text: string) => checks.expectHeading(page, text)
async function checkAccessibility(name: string): Promise<void> {
  await page.waitForLoadState('networkidle')
  await checks.checkAccessibility(page, name)
}

/** The command palette opened with Ctrl+K on the profile page; its search field. */
async function openPaletteOnProfile(): Promise<Locator> {
  await page.goto('/account')
  await expectHeading('Profile')
  await page.keyboard.press('Control+k')
  const input = page.getByRole('combobox', { name: 'Search links, tags, organizations and pages' })
  await input.waitFor()
  return input
}

beforeAll(async () => {
  server = await startConsoleServer()
  browser = await openBrowser()
  api = arrangingApi(server, (await setUpAdministrator(server, ADA)).token)
  context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    acceptDownloads: true,
  })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl })
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      cspViolations.push(message.text())
  })
  page = await context.newPage()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('links, go-links and the command palette in Chromium', () => {
  it('signs in to the Links page, the signed-in home, with an empty state that says what to do', async () => {
    await page.goto('/')
    await page.waitForURL('**/login?**')
    await signIn(page, ADA)
    await page.waitForURL(`${server.baseUrl}/links`)
    await expectHeading('Links')
    await expect.poll(() => page.getByText('You have no links yet.').isVisible()).toBe(true)
    // Nothing to sort yet: no sort is offered.
    expect(await page.getByRole('link', { name: /^Sort:/ }).count()).toBe(0)
    expect(
      await page
        .getByRole('navigation', { name: 'Main navigation' })
        .or(page.locator('#side-nav'))
        .locator('a')
        .first()
        .textContent(),
    ).toBe('Links')
    await checkAccessibility('links (empty)')
  })

  it('creates a tag and a link with it (slug availability shown live), searches for it and edits it', async () => {
    // The tags open in a panel on demand.
    await page.getByRole('button', { name: 'Tags' }).click()
    await page.getByLabel('New tag').fill('Docs')
    await page.getByRole('button', { name: 'Create tag' }).click()
    await page.getByRole('link', { name: /^Docs/ }).waitFor()

    await page.getByRole('button', { name: 'Create link' }).first().click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('heading', { name: 'Create link' }).waitFor()
    await dialog.getByLabel('URL').fill(`${server.baseUrl}/api/health`)
    await dialog.getByLabel('Title').fill('Health handbook')
    await dialog.getByLabel('Slug').fill('has space')
    await dialog.getByText('Use only letters, digits, underscores and dashes').waitFor()
    await dialog.getByLabel('Slug').fill('handbook')
    await dialog.getByText('go/handbook is free.').waitFor()
    await dialog.getByRole('combobox', { name: 'Tags' }).fill('Do')
    await page.getByRole('listbox').getByRole('option', { name: 'Docs' }).click()
    await dialog.getByRole('combobox', { name: 'Tags' }).press('Escape')
    await dialog.getByRole('row', { name: 'Docs' }).waitFor()
    await checkAccessibility('link dialog')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await dialog.waitFor({ state: 'detached' })
    const row = page.getByRole('row', { name: /Health handbook/ })
    await row.waitFor()
    expect(await row.textContent()).toContain('go/handbook')
    expect(await row.textContent()).toContain('Docs')

    // A second link: the list and the search have something to tell apart.
    await api('/api/links', {
      method: 'POST',
      body: { url: 'https://other.example.com/', title: 'Something else' },
    })
    await page.reload()
    await page.getByRole('row', { name: /Something else/ }).waitFor()
    await page.getByLabel('Search title, URL or slug').fill('handbook')
    await page.keyboard.press('Enter')
    await page.waitForURL('**/links?q=handbook')
    await expect.poll(() => page.getByRole('row', { name: /Something else/ }).count()).toBe(0)
    await page.getByRole('row', { name: /Health handbook/ }).waitFor()

    // The slug is taken now: the dialog says so before anything is sent.
    await page.getByRole('button', { name: 'Actions for Health handbook' }).click()
    await page.getByRole('menuitem', { name: 'Edit' }).click()
    await dialog.getByLabel('Title').fill('Health check handbook')
    await dialog.getByText("go/handbook is this link's slug.").waitFor()
    await dialog.getByRole('button', { name: 'Save link' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('row', { name: /Health check handbook/ }).waitFor()
    // Focus returned to what opened the dialog.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.outerHTML))
      .toMatch(/aria-label="Actions for Health/)

    // Filter by tag from the panel (by its name in the address); Back returns to the search.
    await page.getByRole('button', { name: 'Tags' }).click()
    await page.getByRole('link', { name: /^Docs/ }).click()
    await page.waitForURL(/tag=Docs/)
    await page.goBack()
    await page.waitForURL('**/links?q=handbook')
  })

  it('copies the go-link and follows it', async () => {
    await page.getByRole('button', { name: 'Actions for Health check handbook' }).click()
    await page.getByRole('menuitem', { name: 'Copy go/handbook' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `${server.baseUrl}/go/handbook`,
    )
    await page.getByRole('link', { name: 'Open go/handbook' }).click()
    await page.waitForURL(`${server.baseUrl}/api/health`)
    expect(await page.textContent('body')).toContain('ok')
  })

  it('finds the link again from the command palette with the keyboard only', async () => {
    const input = await openPaletteOnProfile()
    expect(await input.evaluate((element) => element === document.activeElement)).toBe(true)
    await checkAccessibility('command palette')
    await page.keyboard.type('check hand')
    await page.getByRole('menuitem', { name: /Health check handbook/ }).waitFor()
    // The list is the typed text's once the other link is gone from it: the results of an earlier
    // part of the text ("c" finds both links) stay until the last search has answered.
    await expect.poll(() => page.getByRole('menuitem', { name: /Something else/ }).count()).toBe(0)
    await expect.poll(() => page.locator('#announcer').textContent()).toMatch(/^\d+ results?$/)
    // Enter opens the link itself (web/e2e/everyday.e2e.test.ts); Ctrl+Enter its place in the list.
    await page.keyboard.press('Control+Enter')
    await expect.poll(() => page.url(), { timeout: 30_000 }).toMatch(/\/links\?q=handbook$/)
    await page.getByRole('row', { name: /Health check handbook/ }).waitFor()

    // Actions: "Create link" opens the dialog; Escape closes it.
    await page.keyboard.press('Control+k')
    await input.waitFor()
    await page.keyboard.type('create link')
    // Enter takes the first result; wait until the results are those of the whole text (the search
    // is debounced, and the results of a partial text may put a link first).
    await expect.poll(() => page.getByRole('menuitem').first().textContent()).toBe('Create link')
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').getByRole('heading', { name: 'Create link' }).waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })

    // Administrators find the administration pages; the top-bar button opens the palette too.
    await page.getByRole('button', { name: 'Search or jump to…' }).click()
    await input.waitFor()
    await page.keyboard.type('audit')
    await page.getByRole('menuitem', { name: 'Administration: audit log' }).waitFor()
    await page.keyboard.press('Escape')
    await input.waitFor({ state: 'detached' })
  })

  it('takes an Enter pressed before the search has answered to the typed text’s first result', async () => {
    await page.goto('/account')
    await expectHeading('Profile')
    // The search for the whole text answers late, so the Enter comes while the results are those
    // of an earlier part of it, or of none.
    const typed = (url: URL) =>
      url.pathname === '/api/links' && url.searchParams.get('q') === 'hand'
    await page.route(typed, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500))
      await route.continue()
    })
    try {
      await page.keyboard.press('Control+k')
      const input = page.getByRole('combobox', {
        name: 'Search links, tags, organizations and pages',
      })
      await input.waitFor()
      await page.keyboard.type('hand')
      await page.keyboard.press('Control+Enter')
      await expect.poll(() => page.url(), { timeout: 30_000 }).toMatch(/\/links\?q=handbook$/)
      await page.getByRole('row', { name: /Health check handbook/ }).waitFor()
    } finally {
      await page.unroute(typed)
    }
  })

  it('never names a result that is gone from the palette', async () => {
    const input = await openPaletteOnProfile()
    // The links and tags found for the whole text: once they are in, the results stay as they are.
    const answer = (pathname: string, extra?: [string, string]) =>
      page.waitForResponse((response) => {
        const url = new URL(response.url())
        return (
          url.pathname === pathname &&
          url.searchParams.get('q') === 'audit' &&
          (extra === undefined || url.searchParams.get(extra[0]) === extra[1])
        )
      })
    const answered = Promise.all([answer('/api/links', ['pinned', 'false']), answer('/api/tags')])
    await page.keyboard.type('audit')
    await page.getByRole('menuitem', { name: 'Administration: audit log' }).waitFor()
    await answered
    const highlighted = () => input.getAttribute('aria-activedescendant')
    const named = () =>
      input.evaluate((element) => {
        const id = element.getAttribute('aria-activedescendant')
        return id !== null && document.getElementById(id) !== null
      })
    // A result highlighted among the final results: the arrow moves the highlight (React Aria's
    // own, half a second after the last keystroke, may have gone with an earlier answer's result).
    await page.keyboard.press('ArrowDown')
    await expect.poll(named).toBe(true)
    // A result can leave the list in ways React Aria's highlight does not follow (an answer that
    // lands between a keystroke and the highlight it sets half a second later): here, at once.
    await input.evaluate((element) => {
      document.getElementById(element.getAttribute('aria-activedescendant') ?? '')?.remove()
    })
    await expect.poll(highlighted).toBeNull()
    await page.keyboard.press('Escape')
    await input.waitFor({ state: 'detached' })
  })

  it("remembers an ambiguous slug's choice from the chooser, lists it in the preferences and removes it", async () => {
    const organization = await api('/api/organizations', {
      method: 'POST',
      body: { name: 'Analytical Society' },
    })
    await api('/api/links', {
      method: 'POST',
      body: {
        url: `${server.baseUrl}/api/health/ready`,
        title: 'Society handbook',
        slug: 'handbook',
        organization_id: organization.id,
      },
    })
    await page.goto('/links/preferences')
    await expectHeading('Go-link preferences')
    await page.getByText('No remembered choices.').waitFor()
    await checkAccessibility('go-link preferences (empty)')

    await page.goto('/go/handbook')
    const choice = page.locator('li', { hasText: 'Society handbook' })
    await choice.getByRole('button', { name: 'Open and remember this choice' }).click()
    await page.waitForURL(`${server.baseUrl}/api/health/ready`)

    await page.goto('/links/preferences')
    const row = page.getByRole('row', { name: /go\/handbook/ })
    await row.waitFor()
    expect(await row.textContent()).toContain('Society handbook')
    expect(await row.textContent()).toContain('Analytical Society')
    await checkAccessibility('go-link preferences')
    await page.getByRole('button', { name: 'Forget the choice for go/handbook' }).click()
    await page.getByText('The choice for go/handbook is forgotten').waitFor()
    await expect.poll(() => row.count()).toBe(0)
    await page.getByRole('button', { name: 'Undo' }).click()
    await row.waitFor()
    await page.getByRole('button', { name: 'Forget the choice for go/handbook' }).click()
    await page.getByText('No remembered choices.').waitFor()
    expect((await api('/api/go/preferences')).items).toEqual([])
  })

  it('imports a bookmark file, reports what it skipped, and exports the links as a bookmark file and JSON', async () => {
    await page.goto('/links/import-export')
    await expectHeading('Import and export')
    await checkAccessibility('import and export')
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    await page.getByText('Choose a file to import.').waitFor()

    await page.getByLabel('Bookmark file').setInputFiles({
      name: 'not-bookmarks.html',
      mimeType: 'text/html',
      buffer: Buffer.from('<p>hello</p>'),
    })
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    await page.getByText('This is not a bookmark file').waitFor()

    await page.getByLabel('Bookmark file').setInputFiles({
      name: 'bookmarks.html',
      mimeType: 'text/html',
      buffer: Buffer.from(BOOKMARKS),
    })
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    // First a preview of what the import would do: nothing is written yet.
    const preview = page.getByRole('region', { name: 'Before importing' })
    await preview.waitFor()
    expect(await preview.locator('p').textContent()).toBe(
      '2 links, 1 new tag: ops. 1 bookmark will be skipped.',
    )
    // The import itself is the preview's primary action, styled as the page's other one (neither
    // under the pointer).
    await page.mouse.move(0, 0)
    const primary = (button: Locator) =>
      button.evaluate((element) => {
        const style = getComputedStyle(element)
        return `${style.backgroundColor} ${style.color} ${style.borderTopColor}`
      })
    expect(await primary(preview.getByRole('button', { name: 'Import with new tags' }))).toBe(
      await primary(page.getByRole('button', { name: 'Import bookmarks' })),
    )
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe('Before importing')
    await checkAccessibility('import preview')
    expect((await api('/api/tags?q=ops')).items).toEqual([])
    await preview.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => preview.count()).toBe(0)
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    await preview.getByRole('button', { name: 'Import with new tags' }).click()
    const report = page.getByTestId('import-report')
    await report.getByText('2 links imported.').waitFor()
    // The folder became a collection, not a tag (folders as tags is off by default); the report
    // links to the links, the tags and the collection.
    expect(await report.textContent()).toContain('1 tag created.')
    expect(await page.getByLabel('Also make folders tags').isChecked()).toBe(false)
    expect(await report.getByRole('link', { name: 'Runbooks' }).getAttribute('href')).toBe(
      'https://runbooks.example.com/',
    )
    await report.getByRole('heading', { name: 'Filed into 1 collection' }).waitFor()
    expect(await report.getByRole('link', { name: 'Team wiki' }).getAttribute('href')).toMatch(
      /^\/links\?collection=[^&]+$/,
    )
    expect(await report.getByRole('link', { name: 'ops' }).getAttribute('href')).toBe(
      '/links?tag=ops',
    )
    expect(await report.getByRole('row', { name: /javascript:void\(0\)/ }).textContent()).toContain(
      'Not an http or https address',
    )
    // The skipped entries' table: fixed columns, each cell under its heading, the position (a
    // number) right-aligned like its heading.
    const skipped = report.getByRole('table')
    expect(await skipped.evaluate((table) => getComputedStyle(table).tableLayout)).toBe('fixed')
    const columns = await skipped.evaluate((table) => {
      const box = (cell: Element) => {
        const { x, width } = cell.getBoundingClientRect()
        return {
          x: Math.round(x),
          width: Math.round(width),
          align: getComputedStyle(cell).textAlign,
        }
      }
      return {
        head: [...table.querySelectorAll('thead th')].map(box),
        body: [...table.querySelectorAll<HTMLTableRowElement>('tbody tr')].map((row) =>
          [...row.cells].map(box),
        ),
      }
    })
    expect(columns.head[0]!.align).toBe('right')
    for (const row of columns.body) {
      expect(row.map(({ x, width }) => ({ x, width }))).toEqual(
        columns.head.map(({ x, width }) => ({ x, width })),
      )
      expect(row[0]!.align).toBe('right')
      expect(row[2]!.align).not.toBe('right')
    }
    await checkAccessibility('import report')

    // The report names the tags the file made; imported without new tags, new names are left out
    // and listed, and a name in another case is the existing tag.
    expect(await report.getByTestId('import-new-tags').textContent()).toContain('ops')
    await page.getByLabel('Bookmark file').setInputFiles({
      name: 'more.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify([{ url: 'https://pager.example.com/', tags: ['OPS', 'Brand new'] }]),
      ),
    })
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    expect(await preview.locator('p').textContent()).toBe('1 link, 1 new tag: Brand new.')
    await preview.getByRole('button', { name: 'Import without new tags' }).click()
    await report.getByText('1 link imported.').waitFor()
    expect(await report.textContent()).toContain('0 tags created.')
    await report.getByRole('heading', { name: '1 new tag left out' }).waitFor()
    expect(await report.getByTestId('import-new-tags').textContent()).toBe('Brand new')
    expect(await report.getByRole('link', { name: 'ops', exact: true }).count()).toBe(1)
    await checkAccessibility('import report (new tags left out)')
    // Past 20 new names the sentence names the first 20 "among" them, still one sentence.
    const topics = Array.from({ length: 22 }, (_, i) => `topic-${String(i + 1).padStart(2, '0')}`)
    await page.getByLabel('Bookmark file').setInputFiles({
      name: 'topics.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify([{ url: 'https://topics.example.com/', tags: topics }])),
    })
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    const first20 = new Intl.ListFormat('en', { type: 'conjunction' }).format(topics.slice(0, 20))
    await expect
      .poll(() => preview.locator('p').textContent())
      .toBe(`1 link, 22 new tags, among them ${first20}.`)
    await preview.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => preview.count()).toBe(0)
    await page.getByLabel('Bookmark file').setInputFiles({
      name: 'bookmarks.html',
      mimeType: 'text/html',
      buffer: Buffer.from(BOOKMARKS),
    })

    // The same file again adds nothing.
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    expect(await preview.locator('p').textContent()).toBe(
      '0 links, no new tags. 3 bookmarks will be skipped.',
    )
    await preview.getByRole('button', { name: 'Import', exact: true }).click()
    await report.getByText('0 links imported.').waitFor()

    const [html] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download bookmark file' }).click(),
    ])
    expect(html.suggestedFilename()).toMatch(/^switchboard-links-\d{4}-\d{2}-\d{2}\.html$/)
    const file = fs.readFileSync(await html.path(), 'utf8')
    expect(file).toContain('<!DOCTYPE NETSCAPE-Bookmark-file-1>')
    expect(file).toContain('SHORTCUTURL="status" TAGS="ops">Status page</A>')
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download JSON' }).click(),
    ])
    const exported = JSON.parse(fs.readFileSync(await json.path(), 'utf8')) as {
      links: { title: string }[]
    }
    expect(exported.links.map((link) => link.title)).toContain('Health check handbook')

    await page.goto('/links?tag=')
    await page.getByRole('row', { name: /Status page/ }).waitFor()

    // A browser's export with a favicon per bookmark, larger than a JSON request may be.
    const firefox = Buffer.from(firefoxExport({ entries: 323, iconBytes: 5200, start: 900 }))
    expect(firefox.length).toBeGreaterThan(1024 * 1024)
    await page.goto('/links/import-export')
    await page
      .getByLabel('Bookmark file')
      .setInputFiles({ name: 'bookmarks-firefox.html', mimeType: 'text/html', buffer: firefox })
    await page.getByRole('button', { name: 'Import bookmarks' }).click()
    await page
      .getByRole('region', { name: 'Before importing' })
      .getByRole('button', { name: /^Import/ })
      .first()
      .click()
    await page.getByTestId('import-report').getByText('323 links imported.').waitFor()
  })

  it('suggests a go-link for a new link: the slug stays empty until its chip is clicked', async () => {
    const pages = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end('<html><head><title>Team Docs handbook</title></head><body></body></html>')
    })
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
    try {
      const pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/handbook`
      await page.goto('/links')
      await page.getByRole('button', { name: 'Create link' }).first().click()
      const dialog = page.getByRole('dialog')
      await dialog.getByLabel('URL').fill(pageUrl)
      const chip = dialog.getByRole('button', { name: 'go/team-docs-handbook' })
      await chip.waitFor()
      // Local suggestions (no AI configured): no AI mark; the person's tag named in the title.
      await dialog.getByRole('button', { name: 'Tag: Docs' }).waitFor()
      expect(await dialog.getByText('AI', { exact: true }).count()).toBe(0)
      expect(await dialog.getByLabel('Slug').inputValue()).toBe('')
      expect(await dialog.getByLabel('Title').inputValue()).toBe('')
      await checkAccessibility('link dialog with suggestions')
      await chip.click()
      expect(await dialog.getByLabel('Slug').inputValue()).toBe('team-docs-handbook')
      expect(await dialog.getByLabel('Title').inputValue()).toBe('')
      await dialog.getByRole('button', { name: 'Use all' }).click()
      expect(await dialog.getByLabel('Title').inputValue()).toBe('Team Docs handbook')
      await dialog.getByRole('button', { name: 'Create link' }).click()
      await dialog.waitFor({ state: 'detached' })
      const row = page.getByRole('row', { name: /Team Docs handbook/ })
      await row.waitFor()
      expect(await row.textContent()).toContain('go/team-docs-handbook')
      expect(await row.textContent()).toContain('Docs')
    } finally {
      pages.closeAllConnections()
      await new Promise((resolve) => pages.close(resolve))
    }
  })

  it('explains how to add go as a browser search keyword', async () => {
    await page.goto('/links/go-keyword')
    await expectHeading('Use go in your browser')
    expect(await page.getByTestId('keyword-url').textContent()).toBe(`${server.baseUrl}/go/%s`)
    await checkAccessibility('go keyword')
  })

  it('shows every Links page in German as well, without serious accessibility findings', async () => {
    await api('/api/users/me', { method: 'PATCH', body: { language: 'de' } })
    for (const [path, heading] of [
      ['/links', 'Links'],
      ['/links/import-export', 'Import und Export'],
      ['/links/go-keyword', 'go im Browser verwenden'],
      ['/links/preferences', 'Go-Link-Vorlieben'],
    ] as const) {
      await page.goto(path)
      await expectHeading(heading)
      await checkAccessibility(`${path} (de)`)
    }
    await page.keyboard.press('Control+k')
    await page
      .getByRole('combobox', { name: 'Links, Schlagwörter, Organisationen und Seiten suchen' })
      .waitFor()
    await page.keyboard.type('handbuch')
    // Checked once the palette has settled (the count is announced then, and nothing is loading):
    // one CI run reported a finding here that no other run has, likely a list re-rendered by the
    // search's answer while axe was walking it.
    await expect
      .poll(() => page.locator('#announcer').textContent())
      .toBe('Nichts gefunden. Versuchen Sie ein anderes Wort.')
    await page.waitForLoadState('networkidle')
    // React Aria clears the input's active descendant a render after the highlighted result is
    // gone: wait for that, so axe sees the settled palette.
    await expect
      .poll(() =>
        page.evaluate(() => {
          const id = document.activeElement?.getAttribute('aria-activedescendant')
          return id === null || id === undefined || document.getElementById(id) !== null
        }),
      )
      .toBe(true)
    await checkAccessibility('command palette (de)')
    await page.keyboard.press('Escape')
    await page.goto('/links')
    await page.getByRole('button', { name: 'Link anlegen' }).first().click()
    await page.getByRole('dialog').getByLabel('Kürzel (Slug)').waitFor()
    await checkAccessibility('link dialog (de)')
    await api('/api/users/me', { method: 'PATCH', body: { language: 'en' } })
    expect(cspViolations).toEqual([])
  })
})
