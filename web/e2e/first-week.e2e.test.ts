/**
 * A team's first week, in real Chromium against the built server (a process, SQLite, no
 * SMTP configured at first, and OUTBOUND_ALLOW_PRIVATE_NETWORKS at its default, off): an owner
 * invites a colleague on an instance without mail, copies the link from the page, and the colleague
 * — signed in — opens it and joins; inviting the same address again says which invitation (and
 * role) it replaced. Then the administrator's first-run checklist follows each step as it is done
 * (outgoing mail through a relay on 127.0.0.1, a second factor), and can be hidden.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSmtpStandIn, type SmtpStandIn } from '../../test/helpers/smtp-server.ts'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import {
  apiRequest,
  openBrowser,
  type FileBrowser,
  setUpAdministrator,
  signIn,
  SIGN_IN_LABELS,
  startConsoleServer,
  type ApiInit,
  type ConsoleServer,
} from './harness.ts'
import { checkAccessibility, expectHeading } from './checks.ts'

const OWNER = {
  name: 'Mehrdad Niknam',
  email: 'owner@example.com',
  password: 'first-week-owner-2026',
}
const COLLEAGUE = {
  name: 'Lin Wei',
  email: 'lin@example.com',
  password: 'first-week-colleague-2026',
}
const LATECOMER = 'later@example.com'

let server: ConsoleServer
let browser: FileBrowser
let smtp: SmtpStandIn
let ownerSession: string
let ownerToken: string
let organizationId: string
let organizationSlug: string

const api = (path: string, init?: ApiInit) => apiRequest(server, path, init)

async function newContext(locale: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale,
  })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl })
  return context
}

const GERMAN = SIGN_IN_LABELS.de
const ENGLISH = SIGN_IN_LABELS.en

beforeAll(async () => {
  smtp = await startSmtpStandIn()
  // The operator's default: private networks refused. A relay on loopback still works (section 3).
  server = await startConsoleServer({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' })
  browser = await openBrowser()
  const owner = await setUpAdministrator(server, OWNER)
  ownerSession = owner.session
  ownerToken = owner.token
  // The owner reads the console in German (the account's language wins over the browser's once
  // signed in).
  expect(
    (await api('/api/users/me', { method: 'PATCH', token: ownerSession, body: { language: 'de' } }))
      .status,
  ).toBe(200)
  expect(
    (await api('/api/admin/users', { method: 'POST', token: ownerToken, body: COLLEAGUE })).status,
  ).toBe(201)
  const org = await api('/api/organizations', {
    method: 'POST',
    token: ownerToken,
    body: { name: 'Erste Woche' },
  })
  expect(org.status).toBe(201)
  ;({ id: organizationId, slug: organizationSlug } = (await org.json()) as {
    id: string
    slug: string
  })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await smtp?.close()
})

describe('joining without mail', () => {
  it('an owner on an instance without SMTP invites, copies the link; the colleague opens it signed in and joins', async () => {
    const owner = await newContext('de-DE')
    const ownerPage = await owner.newPage()
    await ownerPage.goto('/login')
    await signIn(ownerPage, OWNER, GERMAN)
    await ownerPage.waitForURL(`${server.baseUrl}/links`)
    await ownerPage.goto(`/orgs/${organizationId}`)
    await expectHeading(ownerPage, 'Erste Woche')
    // The address names the slug (an id's address leads there); this instance sells no plans, so
    // neither billing nor a plan column is offered.
    expect(organizationSlug).toBe('erste-woche')
    await ownerPage.waitForURL(`${server.baseUrl}/orgs/${organizationSlug}`)
    expect(await ownerPage.getByRole('link', { name: 'Abrechnung' }).count()).toBe(0)

    const invitations = ownerPage.getByRole('region', { name: 'Einladungen' })
    await invitations.getByLabel('E-Mail-Adresse').fill(COLLEAGUE.email)
    await invitations.getByLabel('Rolle').selectOption('admin')
    await invitations.getByRole('button', { name: 'Einladung senden' }).click()
    const created = invitations.getByTestId('invitation-created')
    await created.waitFor()
    // No mail: the page says so, and — to an administrator — where outgoing mail is set up.
    expect(await created.getByRole('status').textContent()).toBe(
      `Es wurde keine E-Mail gesendet: Diese Instanz hat keine ausgehende E-Mail. Kopieren Sie den Link und senden Sie ihn selbst an ${COLLEAGUE.email}. Ausgehende E-Mail einrichten.`,
    )
    expect(
      await created
        .getByRole('link', { name: 'Ausgehende E-Mail einrichten.' })
        .getAttribute('href'),
    ).toBe('/admin/settings#smtp')
    const shown = await created.getByTestId('invitation-link').inputValue()
    expect(shown).toMatch(
      new RegExp(`^${server.baseUrl}/invitations/accept\\?token=[A-Za-z0-9_-]{43}$`),
    )
    await created.getByRole('button', { name: 'Link kopieren' }).click()
    const copied = await ownerPage.evaluate(() => navigator.clipboard.readText())
    expect(copied).toBe(shown)
    await checkAccessibility(ownerPage, 'invitation created without mail (de)')
    // The pending list offers the same link to copy.
    await ownerPage
      .getByTestId('invitations')
      .getByRole('button', { name: `Link kopieren – Einladung an ${COLLEAGUE.email}` })
      .click()
    expect(await ownerPage.evaluate(() => navigator.clipboard.readText())).toBe(shown)

    // Consent stays: the colleague is no member until they accept.
    const members = (await (
      await api(`/api/organizations/${organizationId}/members`, { token: ownerToken })
    ).json()) as {
      items: Array<{ email: string }>
    }
    expect(members.items.map((m) => m.email)).not.toContain(COLLEAGUE.email)

    const colleague = await newContext('en-US')
    const page = await colleague.newPage()
    await page.goto('/login')
    await signIn(page, COLLEAGUE, ENGLISH)
    await page.waitForURL(`${server.baseUrl}/links`)
    await page.goto(copied)
    await expectHeading(page, 'Invitation')
    // Who invites whom where, and as what, before anything is accepted.
    await expect
      .poll(() => page.getByTestId('invitation-summary').textContent())
      .toBe(`${OWNER.name} invited you to join Erste Woche as administrator.`)
    await page.getByRole('button', { name: 'Accept invitation' }).click()
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe('You joined Erste Woche as administrator.')
    expect(await page.getByRole('link', { name: 'Open Erste Woche' }).getAttribute('href')).toBe(
      `/orgs/${organizationSlug}`,
    )
    const after = (await (
      await api(`/api/organizations/${organizationId}/members`, { token: ownerToken })
    ).json()) as {
      items: Array<{ email: string; role: string }>
    }
    expect(after.items).toContainEqual(
      expect.objectContaining({ email: COLLEAGUE.email, role: 'admin' }),
    )
    // Used once: the link now gets a clear page, with nothing left to accept.
    await page.goto(copied)
    await page
      .getByText('This invitation is invalid, expired or already used. Ask for a new one.')
      .waitFor()
    expect(await page.getByRole('button', { name: 'Accept invitation' }).count()).toBe(0)
    await colleague.close()

    // Re-inviting an address with a pending invitation says which one it replaced, and its role.
    await ownerPage.reload()
    await invitations.getByLabel('E-Mail-Adresse').fill(LATECOMER)
    await invitations.getByLabel('Rolle').selectOption('member')
    await invitations.getByRole('button', { name: 'Einladung senden' }).click()
    await created.waitFor()
    expect(await created.getByTestId('invitation-replaced').count()).toBe(0)
    const firstLink = await created.getByTestId('invitation-link').inputValue()
    await invitations.getByLabel('E-Mail-Adresse').fill(LATECOMER)
    await invitations.getByLabel('Rolle').selectOption('admin')
    // As a person would: the button takes a click once it no longer shows it is working.
    const send = invitations.getByRole('button', { name: 'Einladung senden' })
    await expect.poll(() => send.getAttribute('aria-busy')).toBeNull()
    await send.click()
    await expect
      .poll(() => created.getByTestId('invitation-replaced').textContent())
      .toBe(
        `Diese Einladung ersetzt die frühere Einladung an ${LATECOMER} als Mitglied; deren Link funktioniert nicht mehr.`,
      )
    expect(await created.getByTestId('invitation-link').inputValue()).not.toBe(firstLink)
    await expect
      .poll(() =>
        ownerPage
          .getByTestId('invitations')
          .getByRole('row', { name: new RegExp(LATECOMER) })
          .count(),
      )
      .toBe(1)
    // The list links each organization by its slug and, with no plans on sale, names no plan.
    await ownerPage.goto('/orgs')
    await expectHeading(ownerPage, 'Organisationen')
    const list = ownerPage.getByTestId('organizations')
    expect(await list.getByRole('link', { name: 'Erste Woche' }).getAttribute('href')).toBe(
      `/orgs/${organizationSlug}`,
    )
    expect(await list.getByRole('columnheader').allTextContents()).not.toContain('Tarif')
    await owner.close()
  })
})

describe("errors in the person's language", () => {
  /** English schema text, as the API words it: none of it may reach a page. */
  const SCHEMA_ENGLISH =
    /must (be|not|contain|match|have)|is required|is not an accepted field|does not match|is not valid|of type/i
  const noEnglish = async (page: Page, where: string) =>
    expect(await page.locator('main').innerText(), where).not.toMatch(SCHEMA_ENGLISH)
  const errorOf = async (page: Page, label: string, scope = page.locator('main')) => {
    const input = scope.getByLabel(label, { exact: true })
    await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true')
    const ids = (await input.getAttribute('aria-describedby'))!.split(' ')
    return page.locator(`[id="${ids.at(-1)}"]`).textContent()
  }

  it('walks the forms with invalid input in German: every message German, every invalid field at once; names in any script save', async () => {
    const context = await newContext('de-DE')
    const page = await context.newPage()
    await page.goto('/login')
    await signIn(page, OWNER, GERMAN)
    await page.waitForURL(`${server.baseUrl}/links`)

    // Profile: a bidi override is refused at the name, and the other change stays on the page.
    await page.goto('/account')
    const name = page.getByLabel('Name', { exact: true })
    expect(await name.getAttribute('dir')).toBe('auto')
    await name.fill('evil\u202Egnp.exe')
    await page.getByLabel('Dunkel').check()
    await page.getByRole('button', { name: 'Profil speichern' }).click()
    expect(await errorOf(page, 'Name')).toBe(
      'Entfernen Sie unsichtbare oder richtungsändernde Zeichen: Sie können Text wie etwas anderes aussehen lassen.',
    )
    expect(await page.getByLabel('Dunkel').isChecked()).toBe(true)
    await noEnglish(page, 'profile')
    // A Persian name with its ZWNJ, then an emoji sequence with ZWJ: saved and shown as typed.
    for (const typed of ['مهرداد نیک\u200Cنام', '👩\u200D💻 Mehrdad']) {
      await name.fill(typed)
      await page.getByRole('button', { name: 'Profil speichern' }).click()
      await expect
        .poll(
          async () =>
            ((await (await api('/api/users/me', { token: ownerToken })).json()) as { name: string })
              .name,
        )
        .toBe(typed)
      await page.reload()
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(typed)
      await expect.poll(() => page.getByRole('banner').innerText()).toContain(typed)
    }

    // An organization with a slug not in the documented form.
    await page.goto('/orgs')
    await page.getByLabel('Name der Organisation').fill('Zweites Team')
    await page.getByLabel('Kurzname (optional)').fill('Not A Slug!')
    await page.getByRole('button', { name: 'Organisation gründen' }).click()
    expect(await errorOf(page, 'Kurzname (optional)')).toBe(
      'Geben Sie den Wert in der Form ein, die unter dem Feld beschrieben ist.',
    )
    await noEnglish(page, 'organizations')

    // An invitation to something that is not an email address.
    await page.goto(`/orgs/${organizationId}`)
    const invitations = page.getByRole('region', { name: 'Einladungen' })
    await invitations.getByLabel('E-Mail-Adresse').fill('not-an-email')
    await invitations.getByRole('button', { name: 'Einladung senden' }).click()
    expect(await errorOf(page, 'E-Mail-Adresse', invitations)).toBe(
      'Geben Sie eine E-Mail-Adresse wie name@example.com ein.',
    )
    await noEnglish(page, 'invitations')

    // A new user with an empty name and a bad address: both fields at once.
    await page.goto('/admin/users')
    await page.getByRole('button', { name: 'Benutzer anlegen' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('E-Mail-Adresse').fill('nobody-at-example')
    await dialog.getByRole('button', { name: 'Benutzer anlegen' }).click()
    expect(await errorOf(page, 'Name', dialog)).toBe('Füllen Sie dieses Feld aus.')
    expect(await errorOf(page, 'E-Mail-Adresse', dialog)).toBe(
      'Geben Sie eine E-Mail-Adresse wie name@example.com ein.',
    )
    expect(await dialog.innerText()).not.toMatch(SCHEMA_ENGLISH)
    await context.close()
  })
})

describe('the first-run checklist', () => {
  type Checklist = {
    items: Array<{ key: string; done: boolean }>
    complete: boolean
    dismissed: boolean
  }
  const fromApi = async () =>
    (await (await api('/api/admin/checklist', { token: ownerToken })).json()) as Checklist
  /** Each step's state as the page shows it, by key. */
  const fromPage = async (page: Page) => {
    const items = page.getByTestId('checklist').getByRole('listitem')
    const out: Record<string, string> = {}
    for (const item of await items.all())
      out[(await item.getAttribute('data-key'))!] = (await item.locator('.badge').textContent())!
    return out
  }
  const expectBoth = async (page: Page, expected: Record<string, boolean>) => {
    const api = await fromApi()
    expect(Object.fromEntries(api.items.map((i) => [i.key, i.done]))).toEqual(expected)
    await page.reload()
    await page.getByTestId('checklist').waitFor()
    await expect
      .poll(() => fromPage(page))
      .toEqual(
        Object.fromEntries(
          Object.entries(expected).map(([k, done]) => [k, done ? 'Erledigt' : 'Offen']),
        ),
      )
  }

  it('on the administrator home, follows the real state after each step, links to each page, and can be hidden', async () => {
    const context = await newContext('de-DE')
    const page = await context.newPage()
    await page.goto('/login')
    await signIn(page, OWNER, GERMAN)
    await page.waitForURL(`${server.baseUrl}/links`)
    const checklist = page.getByTestId('checklist')
    await checklist.waitFor()
    expect(await checklist.getByRole('heading', { level: 2 }).textContent()).toBe(
      'Instanz einrichten',
    )
    const links = Object.fromEntries(
      await Promise.all(
        (await checklist.getByRole('listitem').all()).map(async (item) => [
          await item.getAttribute('data-key'),
          await item.getByRole('link').getAttribute('href'),
        ]),
      ),
    )
    expect(links).toEqual({
      two_factor: '/account/security',
      outgoing_mail: '/admin/settings#smtp',
      identity_provider: '/admin/providers',
      require_two_factor: '/admin/settings#two-factor-policy',
      invite_team: '/orgs',
    })
    // The invitations of the test above count: the team was asked in.
    const state = {
      two_factor: false,
      outgoing_mail: false,
      identity_provider: false,
      require_two_factor: false,
      invite_team: true,
    }
    await expectBoth(page, state)
    await checkAccessibility(page, 'first-run checklist (de)')

    // Outgoing mail through a relay on 127.0.0.1, with OUTBOUND_ALLOW_PRIVATE_NETWORKS off:
    // configured is not yet done…
    const configured = await api('/api/admin/settings/smtp', {
      method: 'PUT',
      // A new server and sender take an interactive session and the administrator's proof.
      token: ownerSession,
      body: {
        current_password: OWNER.password,
        enabled: true,
        host: '127.0.0.1',
        port: smtp.port,
        from_address: 'no-reply@example.com',
      },
    })
    expect(configured.status).toBe(200)
    await expectBoth(page, state)
    // The step's link lands on the section, its heading focused and in view; saving there says
    // so visibly.
    await checklist.locator('[data-key="outgoing_mail"]').getByRole('link').click()
    await page.waitForURL(`${server.baseUrl}/admin/settings#smtp`)
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('smtp-heading')
    const smtpTop = (await page.locator('#smtp-heading').boundingBox())!.y
    expect(smtpTop).toBeGreaterThanOrEqual(56)
    expect(smtpTop).toBeLessThan(400)
    const smtpForm = page.getByRole('form', { name: 'Ausgehende E-Mail (SMTP)' })
    await smtpForm.getByLabel('Absendername (optional)').fill('Erste Woche')
    await smtpForm.getByRole('button', { name: 'E-Mail-Einstellungen speichern' }).click()
    await expect
      .poll(() => page.getByTestId('smtp-saved').textContent())
      .toBe('E-Mail-Einstellungen gespeichert.')
    expect(await page.getByTestId('smtp-saved').isVisible()).toBe(true)
    await checkAccessibility(page, 'settings, email saved (de)')
    await page.goto('/links')
    // …a delivered test is.
    const tested = await api('/api/admin/settings/smtp/test', {
      method: 'POST',
      token: ownerToken,
      body: {},
    })
    expect(tested.status, await tested.clone().text()).toBe(200)
    expect(smtp.received.at(-1)!.to).toEqual([OWNER.email])
    state.outgoing_mail = true
    await expectBoth(page, state)

    // Hidden: gone for good, until shown again.
    await checklist.getByRole('button', { name: 'Checkliste ausblenden' }).click()
    await expect.poll(() => checklist.count()).toBe(0)
    await page.reload()
    await page.getByRole('heading', { level: 1 }).waitFor()
    expect(await page.getByTestId('checklist').count()).toBe(0)
    expect((await fromApi()).dismissed).toBe(true)
    expect(
      (
        await api('/api/admin/checklist', {
          method: 'PUT',
          token: ownerToken,
          body: { dismissed: false },
        })
      ).status,
    ).toBe(200)

    // The administrator's own second factor: the last required step; the checklist then goes away.
    const begin = await api('/api/auth/mfa/enroll/begin', {
      method: 'POST',
      token: ownerSession,
      body: { password: OWNER.password },
    })
    expect(begin.status).toBe(200)
    const secret = ((await begin.json()) as { secret: string }).secret
    const confirm = await api('/api/auth/mfa/enroll/confirm', {
      method: 'POST',
      token: ownerSession,
      body: { code: totpCode(secret, new Date()) },
    })
    expect(confirm.status).toBe(200)
    const done = await fromApi()
    expect(done.items.find((i) => i.key === 'two_factor')!.done).toBe(true)
    expect(done.complete).toBe(true)
    await page.reload()
    await page.getByRole('heading', { level: 1 }).waitFor()
    await page.waitForLoadState('networkidle')
    expect(await page.getByTestId('checklist').count()).toBe(0)
    await context.close()
  })
})
