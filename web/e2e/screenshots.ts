/**
 * `npm run screenshots`: every console page in light and dark, English and German, at 1280×800,
 * and the pages people use daily also at 390×844 (`-mobile`), a member's view, long names, and the
 * server-rendered go-link pages (miss, details `+`, chooser), into docs/screenshots/. Runs the
 * built server on a throwaway SQLite directory and Debian's Chromium. Secrets on screen (the TOTP
 * key, its QR code, tokens) are masked: a secret never goes into a picture that is committed.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { SoftwareAuthenticator } from '../../test/helpers/webauthn-authenticator.ts'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import {
  ALL_TOKEN_PERMISSIONS,
  launchBrowser,
  startConsoleServer,
  type ConsoleServer,
} from './harness.ts'
import {
  billingEnv,
  startStripeStandIn,
  TEST_STRIPE_SECRET_KEY,
  type StripeStandIn,
} from '../../test/helpers/stripe-stand-in.ts'

const OUT = path.resolve(import.meta.dirname, '../../docs/screenshots')
const ADMIN = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const MEMBER = { name: 'Grace Hopper', email: 'grace@example.com', password: 'compiler-a0-1952' }
const ALL_COMBOS = [
  { language: 'en', locale: 'en-GB', theme: 'light' },
  { language: 'en', locale: 'en-GB', theme: 'dark' },
  { language: 'de', locale: 'de-DE', theme: 'light' },
  { language: 'de', locale: 'de-DE', theme: 'dark' },
] as const
type Combo = (typeof ALL_COMBOS)[number]
/**
 * `SCREENSHOT_COMBOS=en-light,de-dark` takes only those combinations (a quicker pass on a busy
 * machine); all four otherwise.
 */
const ONLY = process.env.SCREENSHOT_COMBOS?.split(',').map((combo) => combo.trim())
const COMBOS: readonly Combo[] =
  ONLY === undefined
    ? ALL_COMBOS
    : ALL_COMBOS.filter((combo) => ONLY.includes(`${combo.language}-${combo.theme}`))

const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

let server: ConsoleServer
let browser: Browser
const written: string[] = []

async function api(
  pathname: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<Record<string, string>> {
  const response = await fetch(`${server.baseUrl}${pathname}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  if (!response.ok)
    throw new Error(
      `${init.method ?? 'GET'} ${pathname}: ${response.status} ${await response.text()}`,
    )
  return response.status === 204 ? {} : ((await response.json()) as Record<string, string>)
}

async function context(combo: Combo, viewport = DESKTOP): Promise<BrowserContext> {
  return browser.newContext({
    baseURL: server.baseUrl,
    viewport,
    locale: combo.locale,
    colorScheme: combo.theme,
    reducedMotion: 'reduce',
  })
}

async function settle(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor()
  await page.waitForLoadState('networkidle')
  await page.waitForTimeout(150)
}

async function shoot(page: Page, name: string, combo: Combo, suffix = ''): Promise<void> {
  await settle(page)
  const file = path.join(OUT, `${name}${suffix}-${combo.language}-${combo.theme}.png`)
  const secrets = page.locator(
    '[data-testid="totp-secret"], [data-testid="new-token"], [data-testid="backup-codes"] code, img.qr',
  )
  await page.screenshot({
    path: file,
    fullPage: false,
    mask: [secrets],
    maskColor: '#8a93a3',
    animations: 'disabled',
  })
  written.push(path.relative(process.cwd(), file))
}

async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto('/login')
  await page.locator('input[name="email"]').fill(who.email)
  await page.locator('input[name="password"]').fill(who.password)
  await page.locator('button[type="submit"]').click()
  await page.waitForURL(`${server.baseUrl}/links`)
}

// ---- Organizations and billing ----------------------------------------------------

let stripe: StripeStandIn

/**
 * Research Lab (Ada owns it; Grace is a member; an invitation is pending) and Grace's Operations,
 * which invites Ada: the organizations page then shows an invitation for her.
 */
async function arrangeOrganizations(
  admin: string,
): Promise<{ id: string; member: string; signUpLink: string }> {
  const lab = await api('/api/organizations', {
    method: 'POST',
    token: admin,
    body: { name: 'Research Lab' },
  })
  const { token: grace } = await api('/api/auth/login', {
    method: 'POST',
    body: { email: MEMBER.email, password: MEMBER.password },
  })
  const invited = await api(`/api/organizations/${lab.id}/members`, {
    method: 'POST',
    token: admin,
    body: { email: MEMBER.email, role: 'member' },
  })
  await api(`/api/invitations/${invited.id}/accept`, { method: 'POST', token: grace })
  // Lin has no account: the link's page offers to create it.
  const lin = await api(`/api/organizations/${lab.id}/members`, {
    method: 'POST',
    token: admin,
    body: { email: 'lin@example.com', role: 'admin' },
  })
  const ops = await api('/api/organizations', {
    method: 'POST',
    token: grace,
    body: { name: 'Operations' },
  })
  await api(`/api/organizations/${ops.id}/members`, {
    method: 'POST',
    token: grace,
    body: { email: ADMIN.email, role: 'admin' },
  })
  return {
    id: lab.id!,
    member: grace!,
    signUpLink: new URL(lin.link!).pathname + new URL(lin.link!).search,
  }
}

async function shootOrganizations(
  combo: Combo,
  lab: { id: string; member: string },
): Promise<void> {
  const ctx = await context(combo)
  const page = await ctx.newPage()
  await signIn(page, ADMIN)
  await page.goto('/orgs')
  await page.locator('[data-testid="organizations"] tbody tr').first().waitFor()
  await page.locator('[data-testid="my-invitations"] tbody tr').first().waitFor()
  await shoot(page, 'orgs', combo)
  await page.goto(`/orgs/${lab.id}`)
  await page.locator('[data-testid="members"] tbody tr').first().waitFor()
  await page.locator('[data-testid="invitations"] tbody tr').first().waitFor()
  await shoot(page, 'org', combo)
  // The only owner asks to leave: the rule is explained, no request is sent.
  await page
    .locator('[data-testid="members"] tbody tr', { hasText: ADMIN.name })
    .locator('button.button-danger-outline')
    .click()
  await page.locator('[data-testid="last-owner"]').waitFor()
  await shoot(page, 'org-last-owner', combo)
  await page.keyboard.press('Escape')
  await page.goto(`/orgs/${lab.id}/billing`)
  await page.locator('.plan-card').first().waitFor()
  await shoot(page, 'billing', combo)
  await page.goto(`/orgs/${lab.id}/billing?checkout=cancelled`)
  await page.locator('[data-testid="checkout-result"]').waitFor()
  await shoot(page, 'billing-cancelled', combo)
  await ctx.close()

  // The console speaks the language of the person's profile.
  await api('/api/users/me', {
    method: 'PATCH',
    token: lab.member,
    body: { language: combo.language },
  })
  const member = await context(combo)
  const memberPage = await member.newPage()
  await signIn(memberPage, MEMBER)
  await memberPage.goto(`/orgs/${lab.id}`)
  await memberPage.locator('[data-testid="members"] tbody tr').first().waitFor()
  await shoot(memberPage, 'org-member', combo)
  await member.close()
}

// ---- end of organizations and billing ---------------------------------------------------------

// ----- Links area: links, link dialog, palette, import/export, keyword, preferences -----
async function arrangeLinks(token: string): Promise<void> {
  const tag = (name: string) => api('/api/tags', { method: 'POST', token, body: { name } })
  const [docs, onboarding] = [await tag('docs'), await tag('onboarding')]
  await tag('ops')
  const org = await api('/api/organizations', {
    method: 'POST',
    token,
    body: { name: 'Analytical Society' },
  })
  const link = (body: Record<string, unknown>) => api('/api/links', { method: 'POST', token, body })
  await link({
    url: 'https://wiki.example.com/handbook',
    title: 'Engineering handbook',
    slug: 'handbook',
    tag_ids: [docs.id, onboarding.id],
  })
  await link({
    url: 'https://status.example.com/',
    title: 'Status page',
    slug: 'status',
    tag_ids: [],
  })
  await link({
    url: 'https://calendar.example.com/team',
    title: 'Team calendar',
    slug: 'cal',
    organization_id: org.id,
  })
  await link({
    url: 'https://society.example.org/handbook',
    title: 'Society handbook',
    slug: 'handbook',
    organization_id: org.id,
  })
  await link({ url: 'https://runbooks.example.com/', title: 'Runbooks', tag_ids: [docs.id] })
  const society = (await api('/api/links?q=society', { token })) as unknown as {
    items: { id: string }[]
  }
  await api('/api/go/preferences/handbook', {
    method: 'PUT',
    token,
    body: { link_id: society.items[0]!.id },
  })
  // Go/status opens two links and no choice is remembered, so /go/status shows the chooser.
  await link({
    url: 'https://status.society.example.org/',
    title: 'Society status',
    slug: 'status',
    organization_id: org.id,
  })
  // Long unbroken names and addresses, a long tag, an IDN address.
  const long = await tag(`quarterly-planning-${'x'.repeat(40)}`)
  await link({
    url: `https://intranet.example.com/${'very-long-path-segment-'.repeat(8)}`,
    title: 'W'.repeat(100),
    tag_ids: [long.id],
  })
  await link({
    url: 'https://bücher.example/Straße/Übersicht',
    title: 'Bücher',
    slug: `s${'l'.repeat(63)}`,
  })
}

/**
 * Collections, a pin and a team share, with the Platform team (Ada and Grace) the administration
 * pages made: Ada's "Onboarding" collection (handbook, then status), her "Status page" pinned,
 * and "Runbooks" shared with the team, which Grace then sees "Shared by Platform". Answers the
 * collection's id.
 */
async function arrangeSharing(token: string, teamId: string): Promise<string> {
  const find = async (q: string) =>
    (
      (await api(`/api/links?owner=personal&q=${q}`, { token })) as unknown as {
        items: { id: string }[]
      }
    ).items[0]!.id
  const [handbook, status, runbooks] = [
    await find('engineering'),
    await find('status.example.com'),
    await find('runbooks'),
  ]
  const collection = await api('/api/collections', {
    method: 'POST',
    token,
    body: { name: 'Onboarding', team_ids: [teamId] },
  })
  await api(`/api/collections/${collection.id}/links`, {
    method: 'PUT',
    token,
    body: { link_ids: [handbook, status] },
  })
  await api('/api/collections', { method: 'POST', token, body: { name: 'On-call' } })
  await api(`/api/links/${status}/pin`, { method: 'PUT', token })
  await api(`/api/links/${runbooks}`, { method: 'PATCH', token, body: { team_ids: [teamId] } })
  return collection.id!
}

/** The Links page with the collections panel open and a pinned link first. */
async function shootCollections(page: Page, combo: Combo, suffix = ''): Promise<void> {
  await page.goto('/links')
  await page.locator('[data-testid="links"] tbody tr').first().waitFor()
  await page.locator('button[aria-controls="collections-panel"]').click()
  await page.locator('[data-testid="collections"] li').first().waitFor()
  // The panel at the top of the view: its collections and the pinned link below them, not the
  // first-run checklist above.
  await page.locator('#collections-panel').evaluate((panel) => panel.scrollIntoView())
  await shoot(page, 'links-collections', combo, suffix)
}

/** Grace's view of a Research Lab link Ada made — no Edit or Delete offered. */
async function arrangeMemberLinks(admin: string, labId: string): Promise<void> {
  await api('/api/links', {
    method: 'POST',
    token: admin,
    body: {
      url: 'https://lab.example.org/notes',
      title: 'Lab notes',
      slug: 'notes',
      organization_id: labId,
    },
  })
}

/** The Links page with a selection, its tags panel, a row's menu, and at a phone's width. */
async function shootLinksMore(page: Page, combo: Combo): Promise<void> {
  await page.goto('/links')
  await page.locator('[data-testid="links"] tbody tr').first().waitFor()
  await page.locator('[data-testid="links"] tbody tr input[type="checkbox"]').nth(0).check()
  await page.locator('[data-testid="links"] tbody tr input[type="checkbox"]').nth(1).check()
  await page.locator('.bulk-bar').waitFor()
  await shoot(page, 'links-bulk', combo)
  await page.goto('/links')
  await page.locator('button[aria-controls="tags-panel"]').click()
  await page.locator('#tags-panel').waitFor()
  await shoot(page, 'links-tags', combo)
  await page.goto('/links')
  await page.locator('[data-testid="links"] tbody tr .icon-button:not(.pin-toggle)').first().click()
  await page.locator('.menu').waitFor()
  await shoot(page, 'links-row-menu', combo)
  await page.keyboard.press('Escape')
}

/**
 * The link dialog's suggestions for a page of this server (the console's own page: its title is
 * all a local suggestion needs), before anything is applied.
 */
async function shootSuggestions(page: Page, combo: Combo, suffix = ''): Promise<void> {
  await page.goto('/links')
  await page.locator('[data-testid="links"] tbody tr').first().waitFor()
  await page.locator('.page-actions button').click()
  await page.locator('.modal input[name="url"]').fill(`${server.baseUrl}/links`)
  await page.locator('.modal .suggestions .chip').first().waitFor()
  await shoot(page, 'links-suggestions', combo, suffix)
  await page.keyboard.press('Escape')
}

/**
 * A browser's bookmark file as people export it: folders, Firefox's keywords and tags, two
 * addresses the Links page has already (handbook, status), tags the person has (docs, ops) and
 * three they have not, and a bookmarklet.
 */
const BOOKMARK_FILE = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks Menu</H1>
<DL><p>
    <DT><H3 ADD_DATE="1700000000">Work</H3>
    <DL><p>
        <DT><A HREF="https://wiki.example.com/handbook" TAGS="docs">Handbook</A>
        <DT><A HREF="https://status.example.com/" SHORTCUTURL="status" TAGS="ops">Status</A>
        <DT><A HREF="https://grafana.example.com/d/latency" TAGS="ops,dashboards">Latency</A>
        <DT><A HREF="https://ci.example.com/pipelines" TAGS="ops,dashboards">CI pipelines</A>
        <DT><H3>Hiring</H3>
        <DL><p>
            <DT><A HREF="https://jobs.example.com/platform" TAGS="hiring">Platform engineer</A>
            <DT><A HREF="https://docs.example.com/interviews" TAGS="hiring,docs">Interviews</A>
        </DL><p>
    </DL><p>
    <DT><A HREF="https://design.example.com/tokens" TAGS="design-system">Design tokens</A>
    <DT><A HREF="https://news.example.org/">News</A>
    <DT><A HREF="javascript:void(document.title)">Page title bookmarklet</A>
</DL><p>
`

/**
 * The import's preview (a dry run, so each combination sees the same file's preview): how many
 * links, the new tags by name, how many bookmarks are skipped. Cancelled: nothing is written.
 */
async function shootImportPreview(page: Page, combo: Combo, suffix = ''): Promise<void> {
  await page.goto('/links/import-export')
  await page.locator('input[name="file"]').setInputFiles({
    name: 'bookmarks.html',
    mimeType: 'text/html',
    buffer: Buffer.from(BOOKMARK_FILE),
  })
  await page.locator('#import-heading ~ form button[type="submit"]').click()
  const preview = page.locator('[data-testid="import-preview"]')
  await preview.waitFor()
  await preview.evaluate((region) => region.scrollIntoView({ block: 'end' }))
  await shoot(page, 'links-import-preview', combo, suffix)
  await preview.locator('button').last().click()
  await preview.waitFor({ state: 'detached' })
}

/** The Links page's tag filter open, a few letters typed, the tags that contain them listed. */
async function shootTagFilter(page: Page, combo: Combo, suffix = ''): Promise<void> {
  await page.goto('/links')
  await page.locator('[data-testid="links"] tbody tr').first().waitFor()
  const input = page.locator('.links-filter-tag input')
  await input.click()
  await input.pressSequentially('o')
  await page.locator('.combobox-popover [role="option"]').nth(2).waitFor()
  await shoot(page, 'links-tag-filter', combo, suffix)
  await page.keyboard.press('Escape')
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
  // The pinned links stay until the search for the text answers: the picture waits for its links.
  await page.locator('.palette-item', { hasText: 'Engineering handbook' }).waitFor()
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

/**
 * The server-rendered go-link pages — a slug nobody has made (the miss page), a slug's
 * details (`/go/<slug>+`), and the chooser for a slug that opens two links.
 */
async function shootGoPages(page: Page, combo: Combo, suffix = ''): Promise<void> {
  await page.goto('/go/team-offsite')
  await shoot(page, 'go-miss', combo, suffix)
  await page.goto('/go/handbook+')
  await shoot(page, 'go-details', combo, suffix)
  await page.goto('/go/status')
  await shoot(page, 'go-chooser', combo, suffix)
}
// ----- end of the Links area -----

// ---- Administration -------------------------------------------------------

interface AdminData {
  memberId: string
  teamId: string
  providerId: string
}

/**
 * A team with members, an identity provider, SMTP and a generic setting, so the pages show content.
 */
async function arrangeAdminPages(jwt: string, memberId: string): Promise<AdminData> {
  const team = await api('/api/admin/teams', {
    method: 'POST',
    token: jwt,
    body: { name: 'Platform', description: 'Runs the shared infrastructure' },
  })
  await api(`/api/admin/teams/${team.id}/members`, {
    method: 'POST',
    token: jwt,
    body: { user_id: memberId },
  })
  await api(`/api/admin/teams/${team.id}/members`, {
    method: 'POST',
    token: jwt,
    body: { email: ADMIN.email },
  })
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
      // A provider and the mail server are credential-equivalent: the administrator's proof.
      current_password: ADMIN.password,
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
      current_password: ADMIN.password,
    },
  })
  await api('/api/admin/settings/branding.name', {
    method: 'PUT',
    token: jwt,
    body: { value: 'Example Corp' },
  })
  await api(`/api/admin/users/${memberId}`, {
    method: 'PUT',
    token: jwt,
    body: { name: 'Grace B. Hopper' },
  })
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
    // The audit log filtered by an area (prefix), its targets by name.
    ['admin-audit-tokens', '/admin/audit?action=token', '[data-testid="audit"] tbody tr'],
  ]
  for (const [name, url, ready] of pages) {
    await page.goto(url)
    if (ready !== undefined) await page.locator(ready).first().waitFor()
    await shoot(page, name, combo)
  }
  // The action picker open, its actions grouped by area.
  await page.goto('/admin/audit')
  await page.locator('[data-testid="audit"] tbody tr').first().waitFor()
  await page.getByTestId('audit-action').click()
  await page.locator('.combobox-popover').waitFor()
  await shoot(page, 'admin-audit-picker', combo)
  await page.keyboard.press('Escape')
  // From and Before in the console's language (segments typed in its order), From after Before
  // refused.
  const typeDate = async (name: string, keys: string) => {
    await page.locator(`[data-field="${name}"] [role="spinbutton"]`).first().click()
    await page.keyboard.type(keys)
  }
  await typeDate('since', combo.language === 'de' ? '020520261000' : '050220261000A')
  await typeDate('until', combo.language === 'de' ? '010520260930' : '050120260930A')
  await page.locator('form[role="search"] button[type="submit"]').click()
  await page.locator('form[role="search"] .field-error').waitFor()
  await shoot(page, 'admin-audit-dates', combo)
  await page.goto('/admin/providers/new')
  await page.getByTestId('provider-presets').getByRole('button', { name: 'Keycloak' }).click()
  await page.getByTestId('callback-url').waitFor()
  await shoot(page, 'admin-provider-preset', combo)
  await shootReauth(page, combo, data.memberId)
  await ctx.close()
}

/**
 * The re-authentication dialog: an administrator changes a person's email address and is asked
 * for their own password. Cancelled, so the address stays as it was.
 */
async function shootReauth(page: Page, combo: Combo, memberId: string, suffix = ''): Promise<void> {
  await page.goto(`/admin/users/${memberId}`)
  await page.locator('[data-testid="user-facts"]').waitFor()
  await page.locator('input[name="email"]').fill('grace@navy.example')
  await page.locator('form button[type="submit"]').first().click()
  await page.locator('input[name="current_password"]').waitFor()
  await shoot(page, 'admin-reauth', combo, suffix)
  await page.keyboard.press('Escape')
  await page.locator('input[name="current_password"]').waitFor({ state: 'detached' })
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true })
  // Each view overwrites its own files; nothing else is removed (docs/screenshots also holds
  // pictures taken by earlier passes, e.g. forgot/reset password and scoped tokens, which this
  // script does not retake).
  stripe = await startStripeStandIn(TEST_STRIPE_SECRET_KEY)
  server = await startConsoleServer(billingEnv(stripe))
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
    const { token: admin } = await api('/api/tokens', {
      method: 'POST',
      token: jwt,
      body: {
        name: 'deploy-ci',
        expires_in_days: 90,
        permissions: ALL_TOKEN_PERMISSIONS,
        organization_boundary: 'all',
      },
    })
    await api('/api/tokens', {
      method: 'POST',
      token: jwt,
      body: { name: 'backup-script', permissions: ['links:read'] },
    })
    // A 100-character name, which must wrap inside its table on every page that shows it.
    await api('/api/tokens', {
      method: 'POST',
      token: jwt,
      body: { name: `nightly-export-${'x'.repeat(85)}`, permissions: ['links:read'] },
    })
    await api('/api/users/me', { token: admin })
    const member = await api('/api/admin/users', { method: 'POST', token: admin, body: MEMBER })
    const organizations = await arrangeOrganizations(admin!)
    await arrangeLinks(admin!)
    await arrangeMemberLinks(admin!, organizations.id)
    const adminData = await arrangeAdminPages(jwt!, member.id!)
    await arrangeSharing(admin!, adminData.teamId)

    for (const combo of COMBOS) {
      await api('/api/users/me', {
        method: 'PATCH',
        token: admin,
        body: { language: combo.language, theme: 'auto' },
      })

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
      await out.goto(organizations.signUpLink)
      await out.locator('input[name="name"]').waitFor()
      await shoot(out, 'invitation-sign-up', combo)
      await signedOut.close()

      const ctx = await context(combo)
      const page = await ctx.newPage()
      await signIn(page, ADMIN)
      await shootLinks(page, combo)
      await shootSuggestions(page, combo)
      await shootLinksMore(page, combo)
      await shootTagFilter(page, combo)
      await shootImportPreview(page, combo)
      if (combo.language === 'en' && combo.theme === 'light') await shootCollections(page, combo)
      await page.goto('/account')
      await shoot(page, 'profile', combo)
      await page.goto('/account/security')
      await page.locator('[data-testid="sessions"] tbody tr').first().waitFor()
      await shoot(page, 'security', combo)
      // The password row expanded (the new password only), and the account's deletion asked for by
      // name.
      await page.locator('[data-testid="security-summary"] button[aria-expanded]').first().click()
      await page.locator('input[name="new_password"]').waitFor()
      await shoot(page, 'security-password', combo)
      await page
        .getByRole('button', { name: /^(Cancel|Abbrechen)$/ })
        .first()
        .click()
      await page.locator('#delete-account-heading').scrollIntoViewIfNeeded()
      await page.locator('section[aria-labelledby="delete-account-heading"] button').click()
      await page.getByRole('alertdialog').waitFor()
      await shoot(page, 'security-delete-account', combo)
      await page.keyboard.press('Escape')
      await page.evaluate(() => window.scrollTo(0, 0))
      // Within the sign-in's re-authentication window: no password asked before the set-up.
      await page.locator('section[aria-labelledby="mfa-heading"] button').first().click()
      await page.locator('[data-testid="totp-secret"]').waitFor()
      await shoot(page, 'security-enrol', combo)
      await page.getByRole('button', { name: /^(Cancel|Abbrechen)$/ }).click()
      await page.goto('/account/tokens')
      await page.locator('[data-testid="tokens"] tbody tr').first().waitFor()
      await shoot(page, 'tokens', combo)
      // A new token's secret, once, in its dialog (the secret is masked in the picture).
      await page.locator('main .page-actions button[aria-controls="token-form"]').click()
      await page.locator('input[name="name"]').fill('screenshot-token')
      await page.locator('#token-form select[name="access-links"]').selectOption('read')
      await page.locator('#token-form button[type="submit"]').click()
      await page.locator('[data-testid="token-reveal"]').waitFor()
      await shoot(page, 'tokens-created', combo)
      await page.locator('[data-testid="token-reveal"] input[type="checkbox"]').check()
      await page.locator('[data-testid="token-reveal"] .dialog-actions button').click()
      await shootGoPages(page, combo)
      await page.goto('/account/no-such-page')
      await shoot(page, 'not-found', combo)
      // A page whose loading the API refused: what failed, not a lost connection.
      const organizationsApi = (url: URL) => url.pathname.startsWith('/api/organizations')
      await page.route(organizationsApi, (route) =>
        route.fulfill({
          status: 429,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'Too Many Requests', reason: 'RATE_LIMITED', message: '' }),
        }),
      )
      await page.goto('/orgs/some-organization')
      await page.locator('h1').waitFor()
      await shoot(page, 'page-failed', combo)
      await page.unroute(organizationsApi)
      await page.route('**/api/**', (route) => route.abort('connectionrefused'))
      await page.goto('/account')
      await shoot(page, 'offline', combo)
      await ctx.close()

      await shootAdminPages(combo, adminData)

      // The member's console in this combination's language (it follows the profile, not the
      // browser).
      await api('/api/users/me', {
        method: 'PATCH',
        token: organizations.member,
        body: { language: combo.language },
      })
      const memberContext = await context(combo)
      const memberPage = await memberContext.newPage()
      await signIn(memberPage, MEMBER)
      await memberPage.goto('/admin')
      await shoot(memberPage, 'forbidden', combo)
      // A member's Links page — Ada's shared link offers only "Copy go/notes".
      await memberPage.goto('/links')
      await memberPage.locator('[data-testid="links"] tbody tr').first().waitFor()
      await shoot(memberPage, 'links-member', combo)
      // What the Platform team shares with her: read-only, "Shared by Platform".
      await memberPage.goto('/links?owner=shared')
      await memberPage.locator('[data-testid="links"] tbody tr').first().waitFor()
      await shoot(memberPage, 'links-shared', combo)
      // A member's Organizations page, which says what a team is.
      await memberPage.goto('/orgs')
      await memberPage.locator('[data-testid="organizations"] tbody tr').first().waitFor()
      await shoot(memberPage, 'orgs-member', combo)
      // A member's view — no administration in the navigation, none offered by the palette.
      await memberPage.goto('/account/tokens')
      await memberPage.locator('.topbar').waitFor()
      await memberPage.keyboard.press('Control+k')
      await memberPage.keyboard.type('admin')
      await memberPage.locator('.palette-empty').waitFor()
      await shoot(memberPage, 'member-palette', combo)
      await memberContext.close()

      // The Links page at a phone's width, long names wrapping inside their rows.
      const linksPhone = await context(combo, PHONE)
      const linksPhonePage = await linksPhone.newPage()
      await signIn(linksPhonePage, ADMIN)
      await linksPhonePage.locator('[data-testid="links"] tbody tr').first().waitFor()
      await shoot(linksPhonePage, 'links', combo, '-phone')
      await shootSuggestions(linksPhonePage, combo, '-phone')
      await shootTagFilter(linksPhonePage, combo, '-phone')
      await shootImportPreview(linksPhonePage, combo, '-phone')
      if (combo.language === 'de' && combo.theme === 'dark')
        await shootCollections(linksPhonePage, combo, '-phone')
      await linksPhone.close()

      await shootOrganizations(combo, organizations)

      const phone = await context(combo, PHONE)
      const phonePage = await phone.newPage()
      await phonePage.goto('/login')
      await shoot(phonePage, 'login', combo, '-mobile')
      await signIn(phonePage, ADMIN)
      await phonePage.goto('/account/security')
      await phonePage.locator('[data-testid="sessions"] tbody tr').first().waitFor()
      await shoot(phonePage, 'security', combo, '-mobile')
      // The sessions as stacked rows at phone width.
      await phonePage.locator('#sessions-heading').scrollIntoViewIfNeeded()
      await shoot(phonePage, 'security-sessions', combo, '-mobile')
      // At 390 px tables are stacked rows and the top bar's search is an icon.
      for (const [name, url, ready] of [
        ['tokens', '/account/tokens', '[data-testid="tokens"] tbody tr'],
        ['activity', '/account/activity', '[data-testid="security-events"] tbody tr'],
        ['admin-users', '/admin/users', '[data-testid="users"] tbody tr'],
        ['admin-audit', '/admin/audit', '[data-testid="audit"] tbody tr'],
        ['admin-settings', '/admin/settings', '[data-testid="settings-nav"]'],
        ['profile', '/account', '[data-testid="profile-security"]'],
        ['orgs', '/orgs', '[data-testid="organizations"] tbody tr'],
        ['admin-teams', '/admin/teams', '[data-testid="teams"] tbody tr'],
        ['admin-user', `/admin/users/${adminData.memberId}`, '[data-testid="user-facts"]'],
      ] as const) {
        await phonePage.goto(url)
        await phonePage.locator(ready).first().waitFor()
        await shoot(phonePage, name, combo, '-mobile')
      }
      await shootReauth(phonePage, combo, adminData.memberId, '-mobile')
      await shootGoPages(phonePage, combo, '-mobile')
      await phone.close()
    }

    await passkeyScreenshots(admin!)
    await policyScreenshots()
  } finally {
    await browser.close()
    await server.stop()
    await stripe.close()
  }
  console.log(`wrote ${written.length} screenshots to ${path.relative(process.cwd(), OUT)}/`)
}

// --- Passkeys ---------------------------------------------------------------------
const PASSKEY_USER = {
  name: 'Katherine Johnson',
  email: 'katherine@example.com',
  password: 'orbital-mechanics-1962',
}

/**
 * The session cookies of a sign-in without a password, made with the suite's software
 * authenticator.
 */
async function passkeyCookies(
  authenticator: SoftwareAuthenticator,
): Promise<{ name: string; value: string; url: string }[]> {
  const start = (await api('/api/auth/passkeys/login/options', { method: 'POST' })) as unknown as {
    attempt_token: string
    options: { challenge: string }
  }
  const response = await fetch(`${server.baseUrl}/api/auth/passkeys/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      attempt_token: start.attempt_token,
      credential: authenticator.assert(start.options),
    }),
  })
  if (!response.ok) throw new Error(`passkey sign-in: ${response.status} ${await response.text()}`)
  return response.headers.getSetCookie().map((cookie) => {
    const [pair] = cookie.split(';')
    const [name, value] = pair!.split('=') as [string, string]
    return { name, value, url: server.baseUrl }
  })
}

/**
 * The security page with two passkeys (one synced), and the second step with the passkey option.
 */
async function passkeyScreenshots(adminToken: string): Promise<void> {
  await api('/api/admin/users', { method: 'POST', token: adminToken, body: PASSKEY_USER })
  const { token } = await api('/api/auth/login', {
    method: 'POST',
    body: { email: PASSKEY_USER.email, password: PASSKEY_USER.password },
  })
  const authenticator = new SoftwareAuthenticator(server.baseUrl)
  for (const [name, synced] of [
    ['Work laptop', false],
    ['Phone', true],
  ] as const) {
    // The second one needs the first as the proof: its answer to this session's challenge.
    const proof =
      authenticator.credentials.length === 0
        ? {}
        : {
            passkey: authenticator.assert(
              (
                (await api('/api/auth/passkeys/proof/options', {
                  method: 'POST',
                  token,
                })) as unknown as { options: { challenge: string } }
              ).options,
            ),
          }
    const { options } = (await api('/api/auth/passkeys/registration/options', {
      method: 'POST',
      token,
      body: { password: PASSKEY_USER.password, ...proof },
    })) as unknown as { options: { challenge: string; rp: { id?: string }; user: { id: string } } }
    const credential = authenticator.register(options, { backupEligible: synced, backedUp: synced })
    await api('/api/auth/passkeys/registration', {
      method: 'POST',
      token,
      body: { name, credential },
    })
  }
  for (const combo of COMBOS) {
    const signIn = await passkeyCookies(authenticator)
    const jwt = signIn.find((cookie) => cookie.name === 'token')!.value
    await api('/api/users/me', {
      method: 'PATCH',
      token: jwt,
      body: { language: combo.language, theme: 'auto' },
    })
    const ctx = await context(combo)
    const page = await ctx.newPage()
    await page.goto('/login')
    await page.locator('input[name="email"]').fill(PASSKEY_USER.email)
    await page.locator('input[name="password"]').fill(PASSKEY_USER.password)
    await page.locator('button[type="submit"]').click()
    await page.waitForURL('**/login/mfa')
    await page.locator('.passkey-sign-in button').waitFor()
    await shoot(page, 'login-mfa-passkey', combo)
    await ctx.addCookies(signIn)
    await page.goto('/account/security')
    await page.locator('[data-testid="passkeys"] tbody tr').nth(1).waitFor()
    await page.locator('#passkeys-heading').scrollIntoViewIfNeeded()
    await shoot(page, 'security-passkeys', combo)
    await ctx.close()
  }
}

// --- Activity, the two-factor policy control, and the enrolment-only page -------------
const POLICY_ADMIN = {
  name: 'Hedy Lamarr',
  email: 'hedy@example.com',
  password: 'frequency-hopping-1942',
}

/**
 * Runs last: it switches the two-factor policy on, after which Ada (no second factor) is
 * restricted to enrolment like every account without one.
 */
async function policyScreenshots(): Promise<void> {
  for (const combo of COMBOS) {
    const { token } = await api('/api/auth/login', {
      method: 'POST',
      body: { email: ADMIN.email, password: ADMIN.password },
    })
    await api('/api/users/me', {
      method: 'PATCH',
      token,
      body: { language: combo.language, theme: 'auto' },
    })
    const ctx = await context(combo)
    const page = await ctx.newPage()
    await signIn(page, ADMIN)
    await page.goto('/account/activity')
    await page.locator('[data-testid="security-events"] tbody tr').first().waitFor()
    await shoot(page, 'activity', combo)
    await page.goto('/admin/settings')
    await page.locator('[data-testid="two-factor-policy"]').waitFor()
    await page.locator('[data-testid="two-factor-policy"]').scrollIntoViewIfNeeded()
    await shoot(page, 'admin-two-factor-policy', combo)
    await ctx.close()
  }

  // A second administrator with a second factor requires one of everyone.
  const { token: ada } = await api('/api/auth/login', {
    method: 'POST',
    body: { email: ADMIN.email, password: ADMIN.password },
  })
  await api('/api/admin/users', {
    method: 'POST',
    token: ada,
    body: { ...POLICY_ADMIN, is_admin: true, current_password: ADMIN.password },
  })
  const { token: hedy } = await api('/api/auth/login', {
    method: 'POST',
    body: { email: POLICY_ADMIN.email, password: POLICY_ADMIN.password },
  })
  const { secret } = await api('/api/auth/mfa/enroll/begin', {
    method: 'POST',
    token: hedy,
    body: { password: POLICY_ADMIN.password },
  })
  await api('/api/auth/mfa/enroll/confirm', {
    method: 'POST',
    token: hedy,
    body: { code: totpCode(secret!, new Date()) },
  })
  await api('/api/admin/settings/two-factor-policy', {
    method: 'PUT',
    token: hedy,
    body: {
      required: 'everyone',
      current_password: POLICY_ADMIN.password,
      code: totpCode(secret!, new Date(), 1),
    },
  })
  for (const combo of COMBOS) {
    const members = (await api(`/api/admin/users?q=${encodeURIComponent(MEMBER.email)}`, {
      token: hedy,
    })) as unknown as { items: { id: string }[] }
    await api(`/api/admin/users/${members.items[0]!.id}`, {
      method: 'PUT',
      token: hedy,
      body: { language: combo.language, theme: 'auto' },
    })
    const ctx = await context(combo)
    const page = await ctx.newPage()
    await page.goto('/login')
    await page.locator('input[name="email"]').fill(MEMBER.email)
    await page.locator('input[name="password"]').fill(MEMBER.password)
    await page.locator('button[type="submit"]').click()
    await page.waitForURL('**/account/security')
    await page.locator('[data-testid="enrollment-required"]').waitFor()
    await shoot(page, 'security-enrolment-required', combo)
    // Last: finishing the enrolment ends this page for the member. The one-time backup codes come
    // in a dialog where the person is looking, focus on them (the codes are masked).
    if (combo === COMBOS[COMBOS.length - 1]) await shootBackupCodes(page, combo)
    await ctx.close()
  }
}

async function shootBackupCodes(page: Page, combo: Combo): Promise<void> {
  await page.locator('section[aria-labelledby="mfa-heading"] button').first().click()
  const secret = page.locator('[data-testid="totp-secret"]')
  await secret.waitFor()
  const key = ((await secret.textContent()) ?? '').replace(/\s+/g, '')
  await page.locator('input[name="code"]').fill(totpCode(key, new Date()))
  await page.locator('input[name="code"]').press('Enter')
  await page.locator('[data-testid="backup-codes"]').waitFor()
  await shoot(page, 'security-backup-codes', combo)
}

await main()
