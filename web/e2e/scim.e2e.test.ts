/**
 * SCIM provisioning in real Chromium against the built server: Administration → Provisioning
 * (SCIM). The administrator finds the SCIM base URL to paste into Okta or Entra ID, creates a
 * credential — after confirming their own password in the re-authentication dialog — whose token
 * is shown once with a copy button (and never again), sees the identity provider's requests with
 * their outcome — including a refused one — turns on "adopt existing accounts by email", and
 * revokes the credential, after which the provider is refused. Checked by axe in both themes, in
 * English and German, and at a phone's width (390 px) without sideways scrolling.
 */
import type { BrowserContext, Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkAccessibility, expectHeading } from './checks.ts'
import { openBrowser, type FileBrowser, startConsoleServer, type ConsoleServer } from './harness.ts'

const ADMIN = {
  name: 'Katherine Johnson',
  email: 'katherine@example.com',
  password: 'orbital-mechanics-1962',
}
const SCIM = 'application/scim+json'

let server: ConsoleServer
let browser: FileBrowser
let adminToken: string

async function api(
  path: string,
  init: { method?: string; token?: string; body?: unknown; type?: string } = {},
) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': init.type ?? 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  const text = await response.text()
  return {
    status: response.status,
    json: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
  }
}

/**
 * Answers the re-authentication dialog with the administrator's password: a SCIM credential
 * provisions accounts, so creating one asks for the administrator's own proof.
 */
async function reauthenticate(page: Page): Promise<number> {
  const dialog = page.getByRole('dialog', { name: 'Confirm it is you' })
  await dialog.getByLabel('Current password').fill(ADMIN.password)
  // The proof goes with the change it confirms, once: the page sends nothing else meanwhile.
  const writes: string[] = []
  const record = (request: Request) => {
    if (request.method() !== 'GET') writes.push(request.postData() ?? '')
  }
  page.on('request', record)
  const answered = page.waitForResponse(
    (r) => r.request().method() !== 'GET' && (r.request().postData() ?? '').includes('password'),
  )
  await dialog.getByRole('button', { name: 'Confirm and continue' }).click()
  const answer = await answered
  await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(0)
  page.off('request', record)
  expect(writes, 'the requests the confirmation sent').toHaveLength(1)
  return answer.status()
}

/** True when nothing on the page is wider than the window (no sideways scrolling). */
const fitsWidth = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

beforeAll(async () => {
  server = await startConsoleServer({ RATE_LIMIT_GENERAL: '0' })
  browser = await openBrowser()
  const setup = await api('/api/auth/setup', { method: 'POST', body: ADMIN })
  adminToken = setup.json.token as string
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('Administration → Provisioning (SCIM)', () => {
  let context: BrowserContext
  let page: Page
  let token = ''

  it('shows the SCIM base URL and empty states, reached from the side navigation', async () => {
    context = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
    })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: server.baseUrl,
    })
    page = await context.newPage()
    await page.goto('/login')
    await page.locator('input[name="email"]').fill(ADMIN.email)
    await page.locator('input[name="password"]').fill(ADMIN.password)
    await page.locator('button[type="submit"]').click()
    await page.waitForURL(`${server.baseUrl}/links`)
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Provisioning (SCIM)' })
      .click()
    await page.waitForURL('**/admin/provisioning')
    await expectHeading(page, 'Provisioning (SCIM)')
    await expect
      .poll(() => page.getByTestId('scim-base-url').textContent())
      .toBe(`${server.baseUrl}/scim/v2`)
    await page.getByText('No SCIM credentials yet.').waitFor()
    await page.getByText('No SCIM requests yet.').waitFor()
    await checkAccessibility(page, 'provisioning, empty')
  })

  it('creates a credential: the token is shown once with a copy button, then only its prefix is listed', async () => {
    await page.getByLabel('Name').fill('Okta production')
    await page.getByRole('button', { name: 'Create credential' }).click()
    await page.getByRole('dialog', { name: 'Confirm it is you' }).waitFor()
    expect(await page.getByTestId('new-scim-token').count()).toBe(0)
    await checkAccessibility(page, 'provisioning, re-authentication dialog')
    expect(await reauthenticate(page)).toBe(201)
    const shown = page.getByTestId('new-scim-token')
    await shown.waitFor()
    token = (await shown.textContent())!.trim()
    expect(token).toMatch(/^scim_[0-9A-Za-z]{43}$/)
    await checkAccessibility(page, 'provisioning, token revealed')
    await page.getByRole('button', { name: 'Copy token' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token)
    await page.getByRole('button', { name: 'I have stored the token' }).click()
    await expect.poll(() => shown.count()).toBe(0)
    const row = page.getByTestId('scim-credential-Okta production')
    await row.waitFor()
    expect(await row.textContent()).toContain(`${token.slice(0, 12)}…`)
    expect(await row.textContent()).toContain('Never used')
    await page.reload()
    await expectHeading(page, 'Provisioning (SCIM)')
    await page.getByTestId('scim-credential-Okta production').waitFor()
    expect(await page.content()).not.toContain(token)
    // One live credential per name: a second is refused at the name field, and no token is shown.
    await page.getByLabel('Name').fill('Okta production')
    await page.getByRole('button', { name: 'Create credential' }).click()
    expect(await reauthenticate(page)).toBe(409)
    await page
      .getByText(
        'A credential with this name exists. Choose another name, or revoke that one first.',
      )
      .waitFor()
    expect(await page.getByTestId('new-scim-token').count()).toBe(0)
    await page.getByLabel('Name').fill('')
  })

  it("lists the identity provider's requests with their outcome, a refused one included, without bodies or secrets", async () => {
    const userName = 'grace.provisioned@example.com'
    const credentialRow = page.getByTestId('scim-credential-Okta production')
    expect(await credentialRow.textContent()).toContain('Never used')
    // An account that exists already, while adopting is off: refused as a conflict.
    const conflict = await api('/scim/v2/Users', {
      method: 'POST',
      token,
      type: SCIM,
      body: {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: ADMIN.email,
        emails: [{ value: ADMIN.email, primary: true }],
        active: true,
      },
    })
    expect(conflict.status).toBe(409)
    expect(
      (await api('/scim/v2/Users?filter=userName%20eq%20%22nobody%40example.com%22', { token }))
        .status,
    ).toBe(200)
    const created = await api('/scim/v2/Users', {
      method: 'POST',
      token,
      type: SCIM,
      body: {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName,
        password: 'provider-password-123',
        active: true,
      },
    })
    expect(created.status).toBe(201)
    const refused = await api(`/scim/v2/Users/${created.json.id as string}`, {
      method: 'PATCH',
      token,
      type: SCIM,
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'active', value: null }],
      },
    })
    expect(refused.status).toBe(400)
    expect((await api('/scim/v2/Users', { token: 'scim_pasted-wrongly' })).status).toBe(401)

    const rows = page.getByTestId('scim-request')
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click()
          return rows.count()
        },
        { timeout: 15_000 },
      )
      .toBe(5)
    // Refresh moved the credential's last use too.
    await expect.poll(() => credentialRow.textContent()).not.toContain('Never used')
    const texts = await rows.allTextContents()
    expect(texts[0]).toContain('GET /scim/v2/Users')
    expect(texts[0]).toContain('401 failed')
    expect(texts[0]).toContain('No valid credential')
    expect(texts[1]).toContain(`PATCH /scim/v2/Users/${created.json.id as string}`)
    expect(texts[1]).toContain('400 failed (invalidValue)')
    expect(texts[1]).toContain('Okta production')
    expect(texts[2]).toContain('201 succeeded')
    expect(texts[3]).toContain('200 succeeded')
    // The conflict says what happened and leads to the setting that lets the provider take over.
    expect(texts[4]).toContain('409 failed (uniqueness)')
    const hint = rows.nth(4).getByTestId('scim-conflict')
    // It names the user the provider could not create.
    expect(await hint.textContent()).toContain(`userName ${ADMIN.email} is already taken.`)
    expect(await hint.textContent()).toContain('An account here already has this address')
    await hint.getByRole('link', { name: 'Adopt existing accounts by email' }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('scim-adopt')
    const html = await page.content()
    for (const secret of [
      token,
      'provider-password-123',
      userName,
      'nobody%40example.com',
      'scim_pasted-wrongly',
    ])
      expect(html).not.toContain(secret)
    await checkAccessibility(page, 'provisioning with requests')
  })

  it('turns on adopting existing accounts by email', async () => {
    const checkbox = page.getByLabel('Adopt existing accounts by email')
    await expect.poll(() => checkbox.isEnabled()).toBe(true)
    expect(await checkbox.isChecked()).toBe(false)
    await checkbox.check()
    await expect
      .poll(
        async () =>
          (
            await api('/api/admin/settings/scim.adopt_existing_accounts_by_email', {
              token: adminToken,
            })
          ).json.value,
      )
      .toBe(true)
    await page.reload()
    await expect
      .poll(() => page.getByLabel('Adopt existing accounts by email').isChecked())
      .toBe(true)
  })

  it('fits a phone (390 px) without sideways scrolling and stays accessible', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await expectHeading(page, 'Provisioning (SCIM)')
    await page.getByTestId('scim-request').first().waitFor()
    expect(await fitsWidth(page)).toBe(true)
    await checkAccessibility(page, 'provisioning at 390 px')
    await page.setViewportSize({ width: 1280, height: 800 })
  })

  it('renders in German', async () => {
    expect(
      (await api('/api/users/me', { method: 'PATCH', token: adminToken, body: { language: 'de' } }))
        .status,
    ).toBe(200)
    await page.reload()
    await expectHeading(page, 'Bereitstellung (SCIM)')
    await page.getByRole('heading', { name: 'Letzte SCIM-Anfragen' }).waitFor()
    const conflict = page.getByTestId('scim-conflict')
    await conflict
      .getByRole('link', { name: 'Bestehende Konten anhand der E-Mail-Adresse übernehmen' })
      .waitFor()
    expect(await conflict.textContent()).toContain(
      `Der userName ${ADMIN.email} ist bereits vergeben.`,
    )
    await checkAccessibility(page, 'provisioning in German')
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await fitsWidth(page)).toBe(true)
    await page.setViewportSize({ width: 1280, height: 800 })
    expect(
      (await api('/api/users/me', { method: 'PATCH', token: adminToken, body: { language: 'en' } }))
        .status,
    ).toBe(200)
    await page.reload()
    await expectHeading(page, 'Provisioning (SCIM)')
  })

  it('revokes the credential behind a named confirmation; the identity provider is refused at its next request', async () => {
    await page.getByRole('button', { name: 'Revoke credential Okta production' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Revoke credential “Okta production”?' })
    await checkAccessibility(page, 'revoke confirmation')
    await dialog.getByRole('button', { name: 'Revoke credential' }).click()
    await page.getByText('No SCIM credentials yet.').waitFor()
    expect((await api('/scim/v2/Users', { token })).status).toBe(401)
    await context.close()
  })
})
