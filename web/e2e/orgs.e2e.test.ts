/**
 * Organizations and billing in real Chromium against the built server (a process, SQLite): an
 * owner creates an organization, invites a colleague (the mail reaches the in-process SMTP server;
 * the colleague follows its link in a browser of their own and accepts), changes their role, is
 * told — without a failed request — that the only owner cannot leave or step down, and buys a plan
 * through the Stripe stand-in (the checkout redirects to Stripe's URL; the way back shows the
 * result). Every page is checked by axe-core in both themes, in English and in German.
 */
import Stripe from 'stripe'
import type { BrowserContext, Page, Response as PageResponse } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SMTP_PASSWORD, SMTP_USERNAME } from '../../test/helpers/secret-scan.ts'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../test/helpers/smtp-server.ts'
import {
  billingEnv,
  startStripeStandIn,
  TEST_STRIPE_SECRET_KEY,
  TEST_STRIPE_WEBHOOK_SECRET,
  type StripeStandIn,
} from '../../test/helpers/stripe-stand-in.ts'
import {
  apiRequest,
  openBrowser,
  recordActivity,
  type FileBrowser,
  setUpAdministrator,
  SIGN_IN_LABELS,
  signIn,
  startConsoleServer,
  type ApiInit,
  type ConsoleServer,
} from './harness.ts'
import { checkAccessibility, expectHeading } from './checks.ts'

const OWNER = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical-engine-1843' }
const COLLEAGUE = { name: 'Lin Wei', email: 'lin@example.com', password: 'lattice-basis-2024' }
const ORG = 'Research Lab'

let server: ConsoleServer
let browser: FileBrowser
let smtp: SmtpStandIn
let stripe: StripeStandIn
let ownerToken: string
const cspViolations: string[] = []
/** Every answer of the API with a 4xx or 5xx status, as the pages received them. */
const failedRequests: string[] = []

async function newContext(locale = 'en-US'): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 800 },
    locale,
  })
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      cspViolations.push(message.text())
  })
  context.on('response', (response: PageResponse) => {
    if (response.url().includes('/api/') && response.status() >= 400)
      failedRequests.push(`${response.status()} ${response.request().method()} ${response.url()}`)
  })
  return context
}

const api = (path: string, init?: ApiInit) => apiRequest(server, path, init)

/** The invitation link in the newest mail to `to`. */
function mailedInvitation(to: string): string {
  const mail = smtp.received.filter((m) => m.to.includes(to)).at(-1)
  expect(mail, `a mail to ${to}`).toBeTruthy()
  const link = /http:\/\/127\.0\.0\.1:\d+\/invitations\/accept\?token=[A-Za-z0-9_-]+/.exec(
    textOf(mail!),
  )
  expect(link, textOf(mail!)).not.toBeNull()
  return link![0]
}

/** The invitation link mailed to `to`, once the mail arrived. */
async function mailedInvitationWhenSent(to: string): Promise<string> {
  await expect.poll(() => smtp.received.filter((m) => m.to.includes(to)).length).toBe(1)
  return mailedInvitation(to)
}

beforeAll(async () => {
  stripe = await startStripeStandIn(TEST_STRIPE_SECRET_KEY)
  smtp = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
  })
  server = await startConsoleServer(billingEnv(stripe))
  browser = await openBrowser()

  const administrator = await setUpAdministrator(server, OWNER)
  ownerToken = administrator.token
  const smtpSettings = await api('/api/admin/settings/smtp', {
    method: 'PUT',
    // A new server and sender take an interactive session and the administrator's proof.
    token: administrator.session,
    body: {
      current_password: OWNER.password,
      enabled: true,
      host: smtp.host,
      port: smtp.port,
      username: SMTP_USERNAME,
      password: SMTP_PASSWORD,
      // The stand-in offers no TLS; credentials in clear only because it is on loopback.
      plaintext_auth_on_loopback: true,
      from_address: 'no-reply@example.com',
    },
  })
  expect(smtpSettings.status).toBe(200)
  expect(
    (await api('/api/admin/users', { method: 'POST', token: ownerToken, body: COLLEAGUE })).status,
  ).toBe(201)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await smtp?.close()
  await stripe?.close()
})

describe('organizations and billing in Chromium', () => {
  let owner: BrowserContext
  let ownerPage: Page
  let organizationId = ''

  it('creates an organization from the organizations page and lands on its settings', async () => {
    owner = await newContext()
    ownerPage = await owner.newPage()
    await ownerPage.goto('/login')
    await signIn(ownerPage, OWNER)
    await ownerPage.waitForURL(`${server.baseUrl}/links`)
    await ownerPage.getByRole('navigation').getByRole('link', { name: 'Organizations' }).click()
    await expectHeading(ownerPage, 'Organizations')
    await ownerPage.getByText('You are not a member of any organization yet.').waitFor()
    await checkAccessibility(ownerPage, 'organizations, empty')

    await ownerPage.getByLabel('Name').fill(ORG)
    await ownerPage.getByRole('button', { name: 'Create organization' }).click()
    await expectHeading(ownerPage, ORG)
    // The address names the organization by its slug; the API by its id.
    expect(new URL(ownerPage.url()).pathname).toBe('/orgs/research-lab')
    const listed = (await (await api('/api/organizations', { token: ownerToken })).json()) as {
      items: Array<{ id: string; slug: string }>
    }
    organizationId = listed.items.find((organization) => organization.slug === 'research-lab')!.id
    expect(await ownerPage.getByLabel('Slug', { exact: true }).inputValue()).toBe('research-lab')
    await checkAccessibility(ownerPage, 'organization, owner')
  })

  it('invites a colleague by mail, resends, and the colleague accepts through the mailed link', async () => {
    const invitations = ownerPage.getByRole('region', { name: 'Invitations' })
    await invitations.getByLabel('Email address').fill(COLLEAGUE.email)
    await invitations.getByLabel('Role').selectOption('member')
    await invitations.getByRole('button', { name: 'Send invitation' }).click()
    await invitations
      .getByText(`We emailed the link to ${COLLEAGUE.email}. You can also pass it on yourself:`)
      .waitFor()
    await expect
      .poll(() =>
        ownerPage
          .getByTestId('invitations')
          .getByRole('row', { name: new RegExp(COLLEAGUE.email) })
          .count(),
      )
      .toBe(1)
    await expect
      .poll(() => smtp.received.filter((m) => m.to.includes(COLLEAGUE.email)).length)
      .toBe(1)
    const first = mailedInvitation(COLLEAGUE.email)

    // The answer's link is the mailed one.
    expect(await invitations.getByTestId('invitation-link').inputValue()).toBe(first)
    await ownerPage.getByRole('button', { name: `New link for ${COLLEAGUE.email}` }).click()
    await expect
      .poll(() => smtp.received.filter((m) => m.to.includes(COLLEAGUE.email)).length)
      .toBe(2)
    const second = mailedInvitation(COLLEAGUE.email)
    expect(second).not.toBe(first)
    await checkAccessibility(ownerPage, 'organization with a pending invitation')

    const colleague = await newContext()
    const page = await colleague.newPage()
    await page.goto(second)
    await expectHeading(page, 'Invitation')
    await page.getByRole('link', { name: 'Sign in to accept' }).click()
    await signIn(page, COLLEAGUE)
    await page.waitForURL('**/invitations/accept?token=*')
    await page.getByRole('button', { name: 'Accept invitation' }).click()
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe(`You joined ${ORG} as member.`)
    // Afterwards the page leads into the organization.
    await page.getByRole('link', { name: `Open ${ORG}` }).waitFor()

    // A member sees the organization and its members, and is offered nothing they may not do.
    await page.goto('/orgs')
    await page.getByRole('link', { name: ORG }).click()
    await expectHeading(page, ORG)
    await page
      .getByTestId('members')
      .getByRole('row', { name: new RegExp(OWNER.name) })
      .waitFor()
    expect(await page.getByRole('region', { name: 'Settings' }).count()).toBe(0)
    expect(await page.getByRole('region', { name: 'Invitations' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: /^Change role of / }).count()).toBe(0)
    expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0)
    expect(await page.getByRole('link', { name: 'Billing' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Leave' }).count()).toBe(1)
    await checkAccessibility(page, 'organization, member')
    // Billing by URL: the page says who manages it, and offers no checkout.
    await page.goto(`/orgs/${organizationId}/billing`)
    await page.getByText('Only owners of the organization manage its billing.').waitFor()
    expect(await page.getByRole('button', { name: /^Subscribe/ }).count()).toBe(0)
    await colleague.close()
  })

  it("changes the colleague's role, and explains instead of failing when the only owner would leave or step down", async () => {
    await ownerPage.reload()
    const members = ownerPage.getByTestId('members')
    const colleagueRow = members.getByRole('row', { name: new RegExp(COLLEAGUE.name) })
    await colleagueRow.waitFor()
    expect(await ownerPage.getByTestId('invitations').count()).toBe(0)

    await ownerPage.getByRole('button', { name: `Change role of ${COLLEAGUE.name}` }).click()
    const dialog = ownerPage.getByRole('dialog')
    await dialog.getByLabel(/^Admin/).check()
    await checkAccessibility(ownerPage, 'change role dialog')
    await dialog.getByRole('button', { name: 'Change role' }).click()
    await expect
      .poll(() => colleagueRow.getByRole('cell', { name: 'Admin', exact: true }).count())
      .toBe(1)

    const before = failedRequests.length
    const requestsBefore: string[] = []
    const record = (request: { method(): string; url(): string }) => {
      if (request.url().includes('/members/') && request.method() !== 'GET')
        requestsBefore.push(request.url())
    }
    ownerPage.on('request', record)

    await members
      .getByRole('row', { name: new RegExp(OWNER.name) })
      .getByRole('button', { name: 'Leave' })
      .click()
    const leave = ownerPage.getByRole('alertdialog')
    expect(await leave.getByRole('heading').textContent()).toBe(`Leave ${ORG}?`)
    expect(await leave.getByTestId('last-owner').textContent()).toBe(
      'You are the only owner of this organization, and an organization always needs an owner.',
    )
    expect(await leave.getByRole('button', { name: 'Leave organization' }).count()).toBe(0)
    await checkAccessibility(ownerPage, 'last owner explanation')
    await leave.getByRole('button', { name: 'Close' }).click()

    await ownerPage.getByRole('button', { name: `Change role of ${OWNER.name}` }).click()
    await ownerPage.getByRole('alertdialog').getByTestId('last-owner').waitFor()
    await ownerPage.keyboard.press('Escape')
    // Focus returns to what opened the dialog (React Aria restores it after the dialog unmounts).
    await expect
      .poll(() => ownerPage.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe(`Change role of ${OWNER.name}`)

    ownerPage.off('request', record)
    expect(requestsBefore).toEqual([])
    expect(failedRequests.slice(before)).toEqual([])
  })

  it('shows and accepts an invitation waiting for the person on the organizations page', async () => {
    const other = (await (
      await api('/api/organizations', {
        method: 'POST',
        token: ownerToken,
        body: { name: 'Operations' },
      })
    ).json()) as {
      id: string
    }
    expect(
      (
        await api(`/api/organizations/${other.id}/invitations`, {
          method: 'POST',
          token: ownerToken,
          body: { email: COLLEAGUE.email, role: 'admin' },
        })
      ).status,
    ).toBe(201)
    // The first page after signing in says who invites them where, and leads to the answer: in
    // German for a German reader…
    const login = await api('/api/auth/login', {
      method: 'POST',
      body: { email: COLLEAGUE.email, password: COLLEAGUE.password },
    })
    const colleagueJwt = ((await login.json()) as { token: string }).token
    const setLanguage = async (language: string) =>
      expect(
        (
          await api('/api/users/me', {
            method: 'PATCH',
            token: colleagueJwt,
            body: { language },
          })
        ).status,
      ).toBe(200)
    await setLanguage('de')
    const german = await (await newContext('de-DE')).newPage()
    await german.goto('/login')
    await signIn(german, COLLEAGUE, SIGN_IN_LABELS.de)
    await german.waitForURL(`${server.baseUrl}/links`)
    const notice = german.getByRole('region', { name: 'Einladungen an Sie' })
    await notice
      .getByText(`${OWNER.name} hat Sie eingeladen, Operations als Administrator beizutreten.`)
      .waitFor()
    await notice.getByRole('link', { name: 'Einladung beantworten' }).waitFor()
    await checkAccessibility(german, 'links with an invitation waiting, German')
    await german.context().close()
    await setLanguage('en')

    // …and in English, at a phone's width too.
    const colleague = await newContext()
    const page = await colleague.newPage()
    const lately = recordActivity(page)
    await page.goto('/login')
    await signIn(page, COLLEAGUE)
    await page.waitForURL(`${server.baseUrl}/links`)
    const pending = page.getByRole('region', { name: 'Invitations for you' })
    await pending
      .getByText(`${OWNER.name} invited you to join Operations as administrator.`)
      .waitFor()
      .catch(async (error: unknown) => {
        const shown = (await page.locator('main').innerText()).slice(0, 400)
        throw new Error(`no invitation notice: ${lately()}; main: ${shown}`, { cause: error })
      })
    await checkAccessibility(page, 'links with an invitation waiting')
    await page.setViewportSize({ width: 390, height: 844 })
    const answer = pending.getByRole('link', { name: 'Answer the invitation' })
    const box = (await answer.boundingBox())!
    expect(box.x + box.width).toBeLessThanOrEqual(390)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await page.setViewportSize({ width: 1280, height: 800 })
    await answer.click()
    await page.waitForURL(`${server.baseUrl}/orgs`)
    const waiting = page.getByRole('region', { name: 'Invitations for you' })
    await waiting.getByRole('row', { name: /Operations/ }).waitFor()
    await checkAccessibility(page, 'organizations with an invitation')
    await waiting.getByRole('button', { name: 'Accept the invitation to Operations' }).click()
    await expect.poll(() => page.getByTestId('organizations').getByRole('row').count()).toBe(3)
    await expect
      .poll(() => page.getByRole('region', { name: 'Invitations for you' }).count())
      .toBe(0)
    await colleague.close()
  })

  it('lets an invitee without an account create it from the link and land in the organization', async () => {
    const BOB = { name: 'Bob Moore', email: 'bob@example.com', password: 'quiet-harbour-lights-7' }
    const invitations = ownerPage.getByRole('region', { name: 'Invitations' })
    await ownerPage.goto(`/orgs/${organizationId}`)
    await invitations.getByLabel('Email address').fill(BOB.email)
    await invitations.getByRole('button', { name: 'Send invitation' }).click()
    await expect.poll(() => smtp.received.filter((m) => m.to.includes(BOB.email)).length).toBe(1)
    const link = mailedInvitation(BOB.email)
    expect(textOf(smtp.received.at(-1)!)).toContain('or create your account there')

    const bob = await newContext()
    const page = await bob.newPage()
    await page.goto(link)
    await expectHeading(page, 'Invitation')
    await page.getByText(`Ada Lovelace invited you to join ${ORG} as member.`).waitFor()
    const form = page.getByRole('region', { name: 'Create your account' })
    await form.getByText(`Your account will use ${BOB.email}`).waitFor()
    await checkAccessibility(page, 'invitation, create your account')
    // The password rules are the service's: a weak one is refused at the field.
    await form.getByLabel('Name').fill(BOB.name)
    await form.getByLabel('Password').fill('password')
    await form.getByRole('button', { name: 'Create account and join' }).click()
    await expect.poll(() => form.getByLabel('Password').getAttribute('aria-invalid')).toBe('true')
    await form.getByLabel('Password').fill(BOB.password)
    await form.getByRole('button', { name: 'Create account and join' }).click()
    await page.waitForURL(`${server.baseUrl}/orgs/research-lab`)
    await expectHeading(page, ORG)

    // The link is spent: opened again, signed out, it asks to sign in.
    const again = await (await newContext()).newPage()
    await again.goto(link)
    await again
      .getByText(
        'This link was already used or has expired. If you created your account with it, sign in.',
      )
      .waitFor()
    await again.getByRole('link', { name: 'Sign in', exact: true }).waitFor()
    await again.context().close()
    await bob.close()
  })

  it('switched off by the administrator, tells the inviter and the invitee an account comes first', async () => {
    await ownerPage.goto('/admin/settings')
    const section = ownerPage.getByRole('region', { name: 'Sign-up' })
    await section
      .getByLabel('People invited to an organization may create their account from the invitation')
      .uncheck()
    await section.getByRole('button', { name: 'Save sign-up' }).click()
    await section.getByText('Sign-up saved.').waitFor()
    await checkAccessibility(ownerPage, 'settings, sign-up saved')

    const CAROL = 'carol@example.com'
    await ownerPage.goto(`/orgs/${organizationId}`)
    const invitations = ownerPage.getByRole('region', { name: 'Invitations' })
    await invitations.getByLabel('Email address').fill(CAROL)
    await invitations.getByRole('button', { name: 'Send invitation' }).click()
    await invitations
      .getByText(`If ${CAROL} has no account here yet, they need one before the link works`, {
        exact: false,
      })
      .waitFor()
    const page = await (await newContext('de-DE')).newPage()
    await page.goto(await mailedInvitationWhenSent(CAROL))
    await page.getByText(`${CAROL} hat hier noch kein Konto`, { exact: false }).waitFor()
    expect(await page.getByRole('region', { name: 'Konto anlegen' }).count()).toBe(0)
    await checkAccessibility(page, 'invitation, sign-up off, German')
    await page.context().close()
    expect(
      (
        await api('/api/admin/settings/sign-up', {
          method: 'PUT',
          token: ownerToken,
          body: { through_invitation: true },
        })
      ).status,
    ).toBe(200)
  })

  it('buys a plan: the checkout redirects to Stripe, and the way back shows the result', async () => {
    // Stripe's hosted page, as far as the browser goes: the stand-in's URL answers a page of its
    // own.
    await owner.route('https://checkout.stripe.test/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>Stripe Checkout</title><h1>Pay</h1>',
      }),
    )
    // An address by id, as older links have it, leads to the slug's; plans are on sale here, so
    // billing is offered.
    await ownerPage.goto(`/orgs/${organizationId}`)
    await ownerPage.waitForURL(`${server.baseUrl}/orgs/research-lab`)
    await ownerPage.getByRole('link', { name: 'Billing' }).click()
    await ownerPage.waitForURL(`${server.baseUrl}/orgs/research-lab/billing`)
    await expectHeading(ownerPage, `Billing for ${ORG}`)
    expect(await ownerPage.getByTestId('current-plan').textContent()).toBe('Free')
    await ownerPage.getByRole('button', { name: 'Subscribe yearly to Team' }).waitFor()
    await checkAccessibility(ownerPage, 'billing')

    await ownerPage.getByRole('button', { name: 'Subscribe monthly to Pro' }).click()
    await ownerPage.waitForURL(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/)
    const session = stripe.requests
      .filter((request) => request.path === '/v1/checkout/sessions')
      .at(-1)!
    expect(session.form.client_reference_id).toBe(organizationId)
    expect(session.form.success_url).toBe(
      `${server.baseUrl}/orgs/research-lab/billing?checkout=success&plan=pro`,
    )

    // The payer gives up: back on the console, nothing changed.
    await ownerPage.goto(session.form.cancel_url!)
    await expect
      .poll(() => ownerPage.getByTestId('checkout-result').textContent())
      .toBe('Checkout cancelled. Nothing was charged and the plan is unchanged.')

    // The payer pays: Stripe tells the service (webhook) and sends the payer back.
    const payload = JSON.stringify({
      id: `evt_e2e_${Date.now()}`,
      object: 'event',
      created: Math.floor(Date.now() / 1000),
      type: 'checkout.session.completed',
      data: {
        object: {
          id: 'cs_test_e2e',
          object: 'checkout.session',
          mode: 'subscription',
          payment_status: 'paid',
          status: 'complete',
          client_reference_id: organizationId,
          customer: session.form.customer,
          subscription: 'sub_e2e',
          metadata: { organization_id: organizationId, plan: 'pro' },
        },
      },
    })
    const delivered = await fetch(`${server.baseUrl}/api/billing/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: TEST_STRIPE_WEBHOOK_SECRET,
        }),
      },
      body: payload,
    })
    expect(delivered.status, await delivered.clone().text()).toBe(200)
    await ownerPage.goto(session.form.success_url!)
    await expect
      .poll(() => ownerPage.getByTestId('checkout-result').textContent())
      .toBe('Payment complete: the organization is now on Pro.')
    expect(await ownerPage.getByTestId('current-plan').textContent()).toBe('Pro')
    await checkAccessibility(ownerPage, 'billing, back from checkout')
  })

  it('renders every organizations page in German', async () => {
    expect(
      (await api('/api/users/me', { method: 'PATCH', token: ownerToken, body: { language: 'de' } }))
        .status,
    ).toBe(200)
    for (const [path, title] of [
      ['/orgs', 'Organisationen'],
      [`/orgs/${organizationId}`, ORG],
      [`/orgs/${organizationId}/billing`, `Abrechnung für ${ORG}`],
    ] as const) {
      await ownerPage.goto(path)
      await expectHeading(ownerPage, title)
      await expect.poll(() => ownerPage.evaluate(() => document.documentElement.lang)).toBe('de')
      await checkAccessibility(ownerPage, `${path} in German`)
    }
    await ownerPage.goto(`/orgs/${organizationId}`)
    await ownerPage.getByRole('button', { name: 'Organisation löschen' }).click()
    await checkAccessibility(ownerPage, 'delete dialog in German')
    await owner.close()
  })

  it('ran under the console CSP without a single violation', () => {
    expect(cspViolations).toEqual([])
  })
})
