/**
 * The tamper-evident audit log in real Chromium against the built server: the audit page shows the
 * log's integrity status and its verifier key; after a row is edited directly in the database, the
 * next check turns the status red, names the entry, and an administrator gets a mail (SMTP
 * stand-in).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../test/helpers/smtp-server.ts'
import { checkAccessibility, expectHeading } from './checks.ts'
import { openBrowser, type FileBrowser, startConsoleServer, type ConsoleServer } from './harness.ts'

const ADMIN = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  password: 'compiler-pioneer-1952',
}

let server: ConsoleServer
let browser: FileBrowser
let smtp: SmtpStandIn
let dbFile: string
let token: string

async function api(url: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

beforeAll(async () => {
  dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-audit-e2e-')), 'audit.db')
  server = await startConsoleServer({ DATABASE_URL: `sqlite:${dbFile}` })
  browser = await openBrowser()
  smtp = await startSmtpStandIn()
  const setup = await fetch(`${server.baseUrl}/api/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  token = ((await setup.json()) as { token: string }).token
  const smtpSettings = {
    enabled: true,
    host: smtp.host,
    port: smtp.port,
    plaintext_auth_on_loopback: true,
    from_address: 'audit@example.com',
    // A new server and sender take the administrator's proof.
    current_password: ADMIN.password,
  }
  expect(
    (await api('/api/admin/settings/smtp', { method: 'PUT', body: smtpSettings })).status,
  ).toBe(200)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await smtp?.close()
  await server?.stop()
  if (dbFile !== undefined) fs.rmSync(path.dirname(dbFile), { recursive: true, force: true })
})

describe('the audit log integrity on the audit page', () => {
  let page: Page

  it('shows the status and the verifier key; an edited row turns it red at the next check and the administrators get a mail', async () => {
    const context = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
    })
    page = await context.newPage()
    await page.goto('/login')
    await page.locator('input[name="email"]').fill(ADMIN.email)
    await page.locator('input[name="password"]').fill(ADMIN.password)
    await page.locator('button[type="submit"]').click()
    await page.waitForURL(`${server.baseUrl}/links`)

    await page.goto('/admin/audit')
    await expectHeading(page, 'Audit log')
    const status = page.getByTestId('audit-integrity')
    // The check at start predates the events listed: the page checks on opening, unasked, and
    // never shows "intact" over a count that leaves them out.
    const shown: string[] = []
    await expect
      .poll(async () => {
        shown.push((await status.textContent()) ?? '')
        return status.getAttribute('data-status')
      })
      .toBe('ok')
    expect(shown.filter((text) => /\b0 events/.test(text))).toEqual([])
    expect(await status.textContent()).toContain('Intact')
    const listed = await page.getByTestId('audit').locator('tbody tr').count()
    const counted = Number(/(\d+) events?/.exec((await status.textContent())!)![1])
    expect(counted).toBeGreaterThanOrEqual(listed)
    await page.getByTestId('audit-check').click()
    await expect.poll(() => status.getAttribute('data-status')).toBe('ok')
    const key = (await api('/api/admin/audit-log/verifier-key')).json.verifier_key as string
    expect(await page.getByTestId('audit-verifier-key').textContent()).toBe(key)
    await checkAccessibility(page, 'audit log with its integrity')

    // Someone with database access rewrites who signed in.
    const db = new DatabaseSync(dbFile)
    try {
      db.exec('PRAGMA busy_timeout = 5000')
      const row = db
        .prepare(
          "select leaf_index from audit_events where action = 'auth.login' order by leaf_index limit 1",
        )
        .get() as {
        leaf_index: number
      }
      db.prepare(
        "update audit_events set actor_email = 'nobody@example.com' where leaf_index = ?",
      ).run(row.leaf_index)
      const mails = smtp.received.length
      await page.getByTestId('audit-check').click()
      await expect.poll(() => status.getAttribute('data-status')).toBe('failed')
      expect(await status.textContent()).toContain(`entry ${row.leaf_index}: edited`)
      await expect.poll(() => smtp.received.length).toBeGreaterThan(mails)
      const mail = smtp.received.slice(mails).find((m) => m.to.includes(ADMIN.email))!
      expect(textOf(mail)).toContain(`entry ${row.leaf_index}: edited`)
      await checkAccessibility(page, 'audit log altered')
      // The status is the database's: a reload shows it too.
      await page.reload()
      await expect
        .poll(() => page.getByTestId('audit-integrity').getAttribute('data-status'))
        .toBe('failed')
    } finally {
      db.close()
    }
    await context.close()
  })
})
