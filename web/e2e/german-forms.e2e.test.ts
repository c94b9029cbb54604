/**
 * Every form, in real Chromium against the built server, a person who reads the
 * console in German submits invalid input to each form that takes input — links and tags,
 * import, tokens, password, email, two-factor authentication, passkeys, organizations, the
 * administration's users, teams and settings (outgoing mail, AI, identity providers, two-factor
 * policy, API tokens, generic settings), re-authentication, and the signed-out pages (sign-in,
 * forgot and reset password). Each case names the fields it expects in error and the German
 * sentence at each (or above the form); the page must show no English schema text, none of the
 * API's English reason messages and no raw reason code. One table of cases, one browser page (and
 * one signed out, at phone width). The security page asks no password inside the sign-in's
 * re-authentication window; its cases end the window first (in the server's database, as ten
 * minutes passing would) and submit the re-authentication dialog wrongly instead. The profile, a
 * new organization, an invitation and a new user are walked in first-week.e2e.test.ts.
 */
import fs from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { BrowserContext, CDPSession, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { totpCode } from '../../test/helpers/rfc6238.ts'
import { startSmtpStandIn, type SmtpStandIn } from '../../test/helpers/smtp-server.ts'
import {
  ALL_TOKEN_PERMISSIONS,
  openBrowser,
  type FileBrowser,
  recordActivity,
  startConsoleServer,
  type ConsoleServer,
} from './harness.ts'

const OWNER = {
  name: 'Grete Gründerin',
  email: 'grete@example.com',
  password: 'deutsche-formulare-2026',
}
const COLLEAGUE = {
  name: 'Karl Kollege',
  email: 'karl@example.com',
  password: 'kollegen-passwort-2026',
}

/** The German catalogue (core and area files), for the labels the cases click. */
const I18N = path.resolve(import.meta.dirname, '../src/i18n')
const GERMAN: Record<string, string> = Object.assign(
  JSON.parse(fs.readFileSync(path.join(I18N, 'de.json'), 'utf8')) as Record<string, string>,
  ...fs
    .readdirSync(path.join(I18N, 'de'))
    .map(
      (file) =>
        JSON.parse(fs.readFileSync(path.join(I18N, 'de', file), 'utf8')) as Record<string, string>,
    ),
)
function de(key: string, params: Record<string, string> = {}): string {
  const text = GERMAN[key]
  if (text === undefined) throw new Error(`no German text for ${key}`)
  return text.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `{${name}}`)
}

/** The sentences the cases expect, as a German reader reads them. */
const MSG = {
  required: 'Füllen Sie dieses Feld aus.',
  tooLong: (limit: number) => `Kürzen Sie dies auf höchstens ${limit} Zeichen.`,
  tooShort: (limit: number) => `Geben Sie mindestens ${limit} Zeichen ein.`,
  // Figures as German writes them (65.535).
  tooSmall: (limit: number) =>
    `Geben Sie eine Zahl von mindestens ${limit.toLocaleString('de-DE')} ein.`,
  tooLarge: (limit: number) =>
    `Geben Sie eine Zahl von höchstens ${limit.toLocaleString('de-DE')} ein.`,
  email: 'Geben Sie eine E-Mail-Adresse wie name@example.com ein.',
  uri: 'Geben Sie eine vollständige Webadresse wie https://example.com/seite ein.',
  format: 'Geben Sie den Wert in der Form ein, die unter dem Feld beschrieben ist.',
  invalid: 'Dieser Wert wird nicht angenommen. Prüfen Sie ihn und versuchen Sie es erneut.',
  wrongPassword: 'Das Passwort ist falsch.',
  wrongCode:
    'Dieser Code ist falsch oder wurde schon verwendet. Warten Sie auf den nächsten in Ihrer Authenticator-App.',
}

/**
 * English schema text as the API words it, the API's reason messages, and raw codes: none may reach
 * a page.
 */
const SCHEMA_ENGLISH =
  /must (be|not|contain|match|have)|is required|is not an accepted field|does not match|is not valid|of type/i
/**
 * The API's English reason messages, read from the catalogue's source (the console may not import
 * the service).
 */
const ENGLISH_REASONS = [
  ...fs
    .readFileSync(path.resolve(import.meta.dirname, '../../src/errors.ts'), 'utf8')
    .matchAll(/^\s+[A-Z_]+: \{\s*status: \d+,\s*message:\s*(['"])(.+?)\1,?\s*\}/gm),
].map((match) => match[2]!)
const RAW_CODE =
  /\b(VALIDATION_FAILED|ALREADY_EXISTS|INVALID_[A-Z_]+|[A-Z]+_[A-Z_]{3,})\b|\bvalidation\.[a-z_]+\b|\breason\.[A-Z_]+\b/

let server: ConsoleServer
let browser: FileBrowser
let smtp: SmtpStandIn
let context: BrowserContext
let page: Page
let cdp: CDPSession
let signedOut: Page
/** What each page did lately, for a case that fails to say where its page went. */
const activity = new Map<Page, () => string>()
let totpSecret: string | undefined
let session: string
let token: string
const ids: Record<string, string> = {}

async function api(
  route: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<Response> {
  // Node's fetch resolves localhost to ::1 first; the server listens on 127.0.0.1.
  return fetch(`${server.baseUrl.replace('localhost', '127.0.0.1')}${route}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
}

async function arrange<T>(route: string, body: unknown, method = 'POST', as = token): Promise<T> {
  const response = await api(route, { method, token: as, body })
  if (!response.ok)
    throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

interface Case {
  /** What is tried, as the report names it. */
  name: string
  /** Where the form is (visited for each case); a function for paths known only after arranging. */
  path: string | (() => string)
  /** Opens the form where a button shows it (a dialog, a second step). */
  open?: (page: Page) => Promise<void>
  /** The form itself. */
  form: (page: Page) => Locator
  /**
   * By field name. A value of `null` clears the field; long values are typed past `maxlength` on
   * purpose.
   */
  fill?: Record<string, string | null>
  /** Anything else to do before submitting (a file to choose, a box to tick). */
  prepare?: (form: Locator) => Promise<void>
  submit: string
  /** On the pages before sign-in, in a browser of its own (German by its locale). */
  signedOut?: true
  /**
   * The change asks for the person's password first (the re-authentication dialog), which is given.
   */
  reauth?: true
  /** The owner's re-authentication windows are ended first (as ten minutes after the sign-in). */
  windowClosed?: true
  /** The sentence at each field in error (every one at once), and above the form (`alert`). */
  expect: { fields?: Record<string, string>; alert?: string }
}

/** The form of the open dialog (an alert dialog for a deletion). */
const dialogForm = (page: Page) =>
  page.locator('[role="dialog"] form, [role="alertdialog"] form').first()
const formWith = (name: string) => (page: Page) =>
  page.locator(`main form:has([name="${name}"])`).first()
/** The re-authentication dialog's form (its name tells it from a confirmation still closing). */
const reauthForm = (page: Page) =>
  page.getByRole('dialog', { name: de('reauth.title') }).locator('form')

/** The security page's password form: it opens from the summary's row. */
const openPasswordForm = (page: Page) =>
  page
    .getByTestId('security-summary')
    .getByRole('button', { name: de('accountSecurity.changePassword'), exact: true })
    .click()

/** A link's edit dialog: the row's "⋯" menu, then Edit. */
async function editHandbuch(page: Page): Promise<void> {
  await page.getByRole('button', { name: de('links.actionsFor', { name: 'Handbuch' }) }).click()
  await page.getByRole('menuitem', { name: de('links.edit'), exact: true }).click()
}

/** The tags open in a panel on demand. */
async function openTags(page: Page): Promise<void> {
  await page.getByRole('button', { name: de('links.manageTags'), exact: true }).click()
  await page.locator('form.tag-create').waitFor()
}

/**
 * Ends the re-authentication windows of the owner's sessions: the browser signed in
 * minutes ago, so without this the security page asks for no password at all. Written into the
 * server's database, as ten minutes passing would leave it (the server runs in its own process,
 * its clock cannot be moved).
 */
function closeReauthenticationWindows(): void {
  const db = new DatabaseSync(path.join(server.dataDir, 'switchboard.db'))
  try {
    db.exec('pragma busy_timeout = 5000')
    db.prepare('update sessions set reauthenticated_at = null').run()
  } finally {
    db.close()
  }
}

/**
 * After `act`, the re-authentication dialog may ask (the window closed by an earlier case): the
 * password, and the app's code when it is on.
 */
async function proveIfAsked(page: Page, act: () => Promise<void>, then: Locator): Promise<void> {
  await act()
  const dialog = reauthForm(page)
  await Promise.race([then.waitFor(), dialog.waitFor()])
  if (await dialog.isVisible()) {
    await dialog.locator('[name="current_password"]').fill(OWNER.password)
    if ((await dialog.locator('[name="code"]').count()) > 0)
      await dialog.locator('[name="code"]').fill(await freshCode())
    await dialog.getByRole('button', { name: de('reauth.submit'), exact: true }).click()
    await dialog.waitFor({ state: 'detached' })
  }
  await then.waitFor()
}

const CASES: Case[] = [
  // Links (the dialog), tags and the import.
  {
    name: 'new link: not a web address',
    path: '/links',
    open: (page) =>
      page
        .getByRole('button', { name: de('links.create'), exact: true })
        .first()
        .click(),
    form: dialogForm,
    fill: { url: 'kein Link' },
    submit: de('links.create'),
    expect: { fields: { url: MSG.uri } },
  },
  {
    name: 'new link: a slug not in the documented form',
    path: '/links',
    open: (page) =>
      page
        .getByRole('button', { name: de('links.create'), exact: true })
        .first()
        .click(),
    form: dialogForm,
    fill: { url: 'https://example.com/neu', slug: 'kein kürzel!' },
    submit: de('links.create'),
    expect: { fields: { slug: MSG.format } },
  },
  {
    name: 'new link: a taken slug',
    path: '/links',
    open: (page) =>
      page
        .getByRole('button', { name: de('links.create'), exact: true })
        .first()
        .click(),
    form: dialogForm,
    fill: { url: 'https://example.com/doppelt', slug: 'vergeben' },
    submit: de('links.create'),
    expect: { fields: { slug: de('links.slugTaken', { slug: 'vergeben' }) } },
  },
  {
    name: 'editing a link: a web address that is not http(s)',
    path: '/links',
    open: editHandbuch,
    form: dialogForm,
    fill: { url: 'ftp://example.com/datei' },
    submit: de('links.save'),
    expect: { fields: { url: MSG.uri } },
  },
  {
    name: 'editing a link: a title too long',
    path: '/links',
    open: editHandbuch,
    form: dialogForm,
    fill: { title: 'T'.repeat(201) },
    submit: de('links.save'),
    expect: { fields: { title: MSG.tooLong(200) } },
  },
  {
    name: 'editing a link: the slug of another link',
    path: '/links',
    open: editHandbuch,
    form: dialogForm,
    fill: { slug: 'vergeben' },
    submit: de('links.save'),
    expect: { fields: { slug: de('links.slugTaken', { slug: 'vergeben' }) } },
  },
  {
    name: 'new tag: empty',
    path: '/links',
    open: openTags,
    form: (page) => page.locator('form.tag-create'),
    fill: { name: '' },
    submit: de('links.createTag'),
    expect: { fields: { name: MSG.required } },
  },
  {
    name: 'new tag: too long',
    path: '/links',
    open: openTags,
    form: (page) => page.locator('form.tag-create'),
    fill: { name: 's'.repeat(65) },
    submit: de('links.createTag'),
    expect: { fields: { name: MSG.tooLong(64) } },
  },
  {
    name: 'new tag: a name already used',
    path: '/links',
    open: openTags,
    form: (page) => page.locator('form.tag-create'),
    fill: { name: 'Arbeit' },
    submit: de('links.createTag'),
    expect: { fields: { name: de('links.tagTaken') } },
  },
  {
    name: 'renaming a tag: empty',
    path: '/links',
    open: async (page) => {
      await openTags(page)
      await page
        .getByRole('button', { name: de('links.renameTagNamed', { name: 'Privat' }) })
        .click()
    },
    form: dialogForm,
    fill: { name: null },
    submit: de('links.renameTagConfirm'),
    expect: { fields: { name: MSG.required } },
  },
  {
    name: 'renaming a tag: too long',
    path: '/links',
    open: async (page) => {
      await openTags(page)
      await page
        .getByRole('button', { name: de('links.renameTagNamed', { name: 'Privat' }) })
        .click()
    },
    form: dialogForm,
    fill: { name: 'p'.repeat(65) },
    submit: de('links.renameTagConfirm'),
    expect: { fields: { name: MSG.tooLong(64) } },
  },
  {
    name: 'renaming a tag: the name of another',
    path: '/links',
    open: async (page) => {
      await openTags(page)
      await page
        .getByRole('button', { name: de('links.renameTagNamed', { name: 'Privat' }) })
        .click()
    },
    form: dialogForm,
    fill: { name: 'Arbeit' },
    submit: de('links.renameTagConfirm'),
    expect: { fields: { name: de('links.tagTaken') } },
  },
  {
    name: 'import: no file chosen',
    path: '/links/import-export',
    form: formWith('file'),
    submit: de('links.importButton'),
    expect: { fields: { file: de('links.importChooseFile') } },
  },
  {
    name: 'import: a file that is not bookmarks',
    path: '/links/import-export',
    form: formWith('file'),
    prepare: (form) =>
      form.locator('[name="file"]').setInputFiles({
        name: 'notizen.html',
        mimeType: 'text/html',
        buffer: Buffer.from('<p>Nur eine Notiz</p>'),
      }),
    submit: de('links.importButton'),
    expect: { fields: { file: de('links.importNotAFile') } },
  },

  // The person's own account. The profile changes the email address; the password is changed on
  // the security page only, whose cases follow below.
  {
    name: 'email change: not an address',
    path: '/account',
    form: formWith('email'),
    fill: { email: 'keine-adresse' },
    submit: de('email.submit'),
    expect: { fields: { email: MSG.email } },
  },
  {
    name: 'new API token: no name',
    path: '/account/tokens',
    open: (page) => page.getByRole('button', { name: de('tokens.new') }).click(),
    form: formWith('expiry'),
    fill: { name: '' },
    submit: de('tokens.create'),
    expect: { fields: { name: MSG.required } },
  },
  // The security page: inside the sign-in's re-authentication window its forms ask no
  // password; past the window the re-authentication dialog asks for it.
  {
    name: 'changing the password on the security page: a new password too short',
    path: '/account/security',
    open: (page) =>
      page
        .getByTestId('security-summary')
        .getByRole('button', { name: de('accountSecurity.changePassword'), exact: true })
        .click(),
    form: (page) => page.getByRole('form', { name: de('accountSecurity.changePassword') }),
    fill: { new_password: 'kurz' },
    submit: de('password.submit'),
    expect: { fields: { new_password: MSG.tooShort(8) } },
  },
  {
    name: 'changing the password on the security page: a new password from the lists of breached passwords',
    path: '/account/security',
    open: openPasswordForm,
    form: (page) => page.getByRole('form', { name: de('accountSecurity.changePassword') }),
    fill: { new_password: 'password123' },
    submit: de('password.submit'),
    expect: { fields: { new_password: de('validation.common_password') } },
  },
  {
    name: 'changing the password on the security page: the email address as the new password',
    path: '/account/security',
    open: openPasswordForm,
    form: (page) => page.getByRole('form', { name: de('accountSecurity.changePassword') }),
    fill: { new_password: OWNER.email },
    submit: de('password.submit'),
    expect: { fields: { new_password: de('validation.same_as_email') } },
  },
  {
    name: 'email change past the re-authentication window: a wrong password in the dialog',
    path: '/account',
    windowClosed: true,
    open: async (page) => {
      const form = formWith('email')(page)
      await form.locator('[name="email"]').fill('grete.neu@example.com')
      await form.getByRole('button', { name: de('email.submit'), exact: true }).click()
    },
    form: reauthForm,
    fill: { current_password: 'nicht mein passwort' },
    submit: de('reauth.submit'),
    expect: { fields: { current_password: MSG.wrongPassword } },
  },
  {
    name: 'changing the password past the re-authentication window: a wrong password in the dialog',
    path: '/account/security',
    windowClosed: true,
    open: async (page) => {
      await page
        .getByTestId('security-summary')
        .getByRole('button', { name: de('accountSecurity.changePassword'), exact: true })
        .click()
      const form = page.getByRole('form', { name: de('accountSecurity.changePassword') })
      await form.locator('[name="new_password"]').fill('ein ganz neues passwort 2027')
      await form.getByRole('button', { name: de('password.submit'), exact: true }).click()
    },
    form: reauthForm,
    fill: { current_password: 'nicht mein passwort' },
    submit: de('reauth.submit'),
    expect: { fields: { current_password: MSG.wrongPassword } },
  },
  {
    name: 'turning on two-factor authentication past the re-authentication window: a wrong password in the dialog',
    path: '/account/security',
    windowClosed: true,
    open: (page) => page.getByRole('button', { name: de('security.begin'), exact: true }).click(),
    form: reauthForm,
    fill: { current_password: 'nicht mein passwort' },
    submit: de('reauth.submit'),
    expect: { fields: { current_password: MSG.wrongPassword } },
  },
  {
    name: 'turning on two-factor authentication: a wrong code',
    path: '/account/security',
    open: (page) =>
      proveIfAsked(
        page,
        () => page.getByRole('button', { name: de('security.begin'), exact: true }).click(),
        page.locator('main form:has([name="code"])').first(),
      ),
    form: (page) => page.locator('main form:has([name="code"])').first(),
    fill: { code: '000000' },
    submit: de('security.confirm'),
    expect: { fields: { code: MSG.wrongCode } },
  },

  // Organizations.
  {
    name: 'organization settings: no name, a slug not in the documented form',
    path: () => `/orgs/${ids.org}`,
    form: formWith('slug'),
    fill: { name: null, slug: 'Kein Kurzname!' },
    submit: de('orgs.settings.save'),
    expect: { fields: { name: MSG.required, slug: MSG.format } },
  },

  {
    name: 'organization settings: a slug another organization has',
    path: () => `/orgs/${ids.org}`,
    form: formWith('slug'),
    fill: { slug: 'vergeben' },
    submit: de('orgs.settings.save'),
    expect: { fields: { slug: 'Das gibt es hier schon. Geben Sie einen anderen Wert ein.' } },
  },

  // Administration: users and teams.
  {
    name: 'editing a user: no name, not an address',
    path: () => `/admin/users/${ids.colleague}`,
    form: formWith('is_admin'),
    fill: { name: null, email: 'karl-at-example' },
    submit: de('admin.user.save'),
    expect: { fields: { name: MSG.required, email: MSG.email } },
  },
  {
    name: "setting a user's password: too short",
    path: () => `/admin/users/${ids.colleague}`,
    form: (page) => page.locator('main form:has([name="password"])').first(),
    fill: { password: 'kurz' },
    submit: de('admin.user.setPassword'),
    reauth: true,
    expect: { fields: { password: MSG.tooShort(8) } },
  },
  {
    name: 'a copyable reset link: re-authentication with a wrong password',
    path: () => `/admin/users/${ids.colleague}`,
    open: (page) => page.getByRole('button', { name: de('admin.user.createLink') }).click(),
    form: dialogForm,
    fill: { current_password: 'nicht mein passwort' },
    submit: de('reauth.submit'),
    expect: { fields: { current_password: MSG.wrongPassword } },
  },
  {
    name: 'new team: no name, a description too long',
    path: '/admin/teams',
    form: formWith('description'),
    fill: { name: '', description: 'd'.repeat(501) },
    submit: de('admin.teams.create'),
    expect: { fields: { name: MSG.required, description: MSG.tooLong(500) } },
  },
  {
    name: 'new team: a name already used',
    path: '/admin/teams',
    form: formWith('description'),
    fill: { name: 'Redaktion' },
    submit: de('admin.teams.create'),
    expect: { fields: { name: 'Das gibt es hier schon. Geben Sie einen anderen Wert ein.' } },
  },
  {
    name: 'team settings: no name',
    path: () => `/admin/teams/${ids.team}`,
    form: formWith('description'),
    fill: { name: null },
    submit: de('admin.team.save'),
    expect: { fields: { name: MSG.required } },
  },
  {
    name: 'adding a team member by address: not an address',
    path: () => `/admin/teams/${ids.team}`,
    form: (page) => page.locator('main form:has(input[name="email"])').first(),
    fill: { email: 'niemand' },
    submit: de('admin.team.addSubmit'),
    expect: { fields: { email: MSG.email } },
  },
  {
    name: 'adding a team member by address: an address no account has',
    path: () => `/admin/teams/${ids.team}`,
    form: (page) => page.locator('main form:has(input[name="email"])').first(),
    fill: { email: 'unbekannt@example.com' },
    submit: de('admin.team.addSubmit'),
    expect: { fields: { email: de('admin.team.noSuchUser') } },
  },

  // Administration: settings.
  {
    name: 'outgoing mail: a port out of range, not a sender address, a user name too long',
    path: '/admin/settings',
    form: formWith('from_address'),
    fill: { port: '70000', from_address: 'absender', username: 'u'.repeat(255) },
    submit: de('admin.smtp.save'),
    expect: {
      fields: { port: MSG.tooLarge(65535), from_address: MSG.email, username: MSG.tooLong(254) },
    },
  },
  {
    name: 'test mail: not an address',
    path: '/admin/settings',
    form: formWith('to'),
    fill: { to: 'empfaenger' },
    submit: de('admin.smtp.testSend'),
    expect: { fields: { to: MSG.email } },
  },
  {
    name: 'AI: not a web address',
    path: '/admin/settings',
    form: formWith('base_url'),
    fill: { base_url: 'kein url' },
    submit: de('admin.ai.save'),
    expect: { fields: { base_url: MSG.uri } },
  },
  {
    name: 'two-factor policy: a wrong password',
    path: '/admin/settings',
    form: formWith('current_password'),
    fill: { current_password: 'nicht mein passwort' },
    submit: de('policy.save'),
    expect: { fields: { current_password: MSG.wrongPassword } },
  },
  {
    name: 'API token settings: a lifetime of 0 days',
    path: '/admin/settings',
    form: formWith('max_lifetime_days'),
    fill: { max_lifetime_days: '0' },
    submit: de('admin.tokens.save'),
    expect: { fields: { max_lifetime_days: MSG.tooSmall(1) } },
  },
  {
    name: 'generic setting: a key not in the documented form',
    path: '/admin/settings',
    form: formWith('value'),
    fill: { key: 'Kein Schlüssel!', value: '1' },
    submit: de('admin.generic.save'),
    expect: { fields: { key: MSG.format } },
  },
  {
    name: 'generic setting: a value that is not JSON',
    path: '/admin/settings',
    form: formWith('value'),
    fill: { key: 'mein.schluessel', value: '{kein json' },
    submit: de('admin.generic.save'),
    expect: { fields: { value: de('admin.generic.notJson') } },
  },
  {
    name: 'new identity provider: nothing filled in',
    path: '/admin/providers/new',
    form: formWith('issuer_url'),
    submit: de('admin.provider.create'),
    expect: {
      fields: {
        name: MSG.required,
        // Left empty, the key is missing, whatever rule the API names for it.
        provider_key: MSG.required,
        issuer_url: MSG.required,
        client_id: MSG.required,
        client_secret: MSG.required,
      },
    },
  },
  {
    name: 'new identity provider: an issuer that is no web address',
    path: '/admin/providers/new',
    form: formWith('issuer_url'),
    fill: {
      name: 'Firmenkonto',
      provider_key: 'firma',
      issuer_url: 'kein url',
      client_id: 'switchboard',
      client_secret: 'geheim',
    },
    submit: de('admin.provider.create'),
    expect: { fields: { issuer_url: MSG.uri } },
  },

  // Confirmations typed by hand.
  {
    name: 'deleting a user: the address typed wrong',
    path: () => `/admin/users/${ids.colleague}`,
    open: (page) =>
      page.getByRole('button', { name: de('admin.user.delete'), exact: true }).click(),
    form: dialogForm,
    fill: { confirm: 'jemand@example.com' },
    submit: de('admin.user.deleteSubmit'),
    expect: { fields: { confirm: de('admin.user.deleteMismatch') } },
  },
  {
    name: 'deleting an organization: the name typed wrong',
    path: () => `/orgs/${ids.org}`,
    open: (page) =>
      page.getByRole('button', { name: de('orgs.delete.action'), exact: true }).click(),
    form: dialogForm,
    fill: { confirm_name: 'Falscher Name' },
    submit: de('orgs.delete.action'),
    expect: {
      fields: { confirm_name: de('orgs.delete.mismatch', { name: 'Deutsche Formulare' }) },
    },
  },

  // Passkeys, last: once the account has one, changes ask for it as a second factor.
  {
    name: 'new passkey: a name too long',
    path: '/account/security',
    form: (page) => page.locator('form[aria-labelledby="passkey-add-heading"]'),
    fill: { name: 'P'.repeat(65) },
    submit: de('passkeys.add'),
    expect: { fields: { name: MSG.tooLong(64) } },
  },
  {
    name: 'renaming a passkey: empty',
    path: '/account/security',
    open: async (page) => {
      if (
        (await page
          .getByRole('button', { name: `${de('passkeys.renameShort')} Laptop` })
          .count()) === 0
      ) {
        const add = page.locator('form[aria-labelledby="passkey-add-heading"]')
        await add.locator('[name="name"]').fill('Laptop')
        await add.getByRole('button', { name: de('passkeys.add'), exact: true }).click()
      }
      await page.getByRole('button', { name: `${de('passkeys.renameShort')} Laptop` }).click()
    },
    form: dialogForm,
    fill: { name: null },
    submit: de('passkeys.rename'),
    expect: { fields: { name: MSG.required } },
  },

  // Two-factor authentication on (through the API, once): the forms that manage it, and the sign-in
  // step. Past the window the dialog asks for the app's code too.
  {
    name: 'new backup codes past the re-authentication window: a wrong code in the dialog',
    path: '/account/security',
    open: async (page) => {
      await enableTotp(page)
      closeReauthenticationWindows()
      await page.reload()
      await page
        .getByRole('button', { name: de('security.regenerate'), exact: true })
        .first()
        .click()
    },
    form: reauthForm,
    fill: { current_password: OWNER.password, code: '000000' },
    submit: de('reauth.submit'),
    expect: { fields: { code: MSG.wrongCode } },
  },
  {
    name: 'turning off two-factor authentication past the re-authentication window: no code in the dialog',
    path: '/account/security',
    windowClosed: true,
    open: async (page) => {
      await page.getByRole('button', { name: de('security.disable'), exact: true }).click()
      await page
        .getByRole('alertdialog')
        .getByRole('button', { name: de('security.disable'), exact: true })
        .click()
    },
    form: reauthForm,
    fill: { current_password: OWNER.password, code: '' },
    submit: de('reauth.submit'),
    // The API's 400 VALIDATION_FAILED (the code is always required), at the code field in German.
    expect: { fields: { code: MSG.required } },
  },
  {
    name: 'sign-in, second step: a wrong code',
    signedOut: true,
    path: '/login',
    open: async (page) => {
      await page.locator('[name="email"]').fill(OWNER.email)
      await page.locator('[name="password"]').fill(OWNER.password)
      await page.getByRole('button', { name: de('login.submit'), exact: true }).click()
      await page.waitForURL(/\/login\/mfa/)
    },
    form: formWith('code'),
    fill: { code: '000000' },
    submit: de('mfa.submit'),
    expect: { fields: { code: MSG.wrongCode } },
  },

  // Before sign-in.
  {
    name: 'sign-in: a wrong password',
    signedOut: true,
    path: '/login',
    form: formWith('password'),
    fill: { email: OWNER.email, password: 'nicht mein passwort' },
    submit: de('login.submit'),
    expect: { fields: { password: de('reason.INVALID_CREDENTIALS') } },
  },
  {
    name: 'sign-in: not an address, no password',
    signedOut: true,
    path: '/login',
    form: formWith('password'),
    fill: { email: 'grete', password: '' },
    submit: de('login.submit'),
    expect: { fields: { email: MSG.email, password: MSG.required } },
  },
  {
    name: 'forgot password: not an address',
    signedOut: true,
    path: '/forgot-password',
    form: formWith('email'),
    fill: { email: 'grete-at-example' },
    submit: de('forgot.submit'),
    expect: { fields: { email: MSG.email } },
  },
  {
    name: 'reset password: too short',
    signedOut: true,
    path: () => `/reset-password?token=${ids.resetToken}`,
    form: formWith('new_password'),
    fill: { new_password: 'kurz' },
    submit: de('reset.submit'),
    expect: { fields: { new_password: MSG.tooShort(8) } },
  },
  {
    name: 'reset password: from the lists of breached passwords',
    signedOut: true,
    path: () => `/reset-password?token=${ids.resetToken}`,
    form: formWith('new_password'),
    fill: { new_password: 'password123' },
    submit: de('reset.submit'),
    expect: { fields: { new_password: de('validation.common_password') } },
  },
]

/**
 * Turns on the owner's authenticator app (once) on the security page, as a person does: the
 * password if the window asks for it, then a code for the secret the page shows.
 */
async function enableTotp(page: Page): Promise<void> {
  if (totpSecret !== undefined) return
  await proveIfAsked(
    page,
    () => page.getByRole('button', { name: de('security.begin'), exact: true }).click(),
    page.getByTestId('totp-secret'),
  )
  const secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '')
  const confirm = page.locator('main form:has([name="code"])').first()
  totpSecret = secret
  await confirm.locator('[name="code"]').fill(await freshCode())
  // The arranging API token stays.
  await confirm.locator('[name="revoke_api_tokens"]').uncheck()
  await confirm.getByRole('button', { name: de('security.confirm'), exact: true }).click()
  await page.getByTestId('totp-secret').waitFor({ state: 'detached' })
}

/**
 * A code of the owner's app not used before: an accepted code cannot be replayed, and the service
 * accepts the step after its clock's, so the second code is the next step's and only a third waits.
 */
let lastStep = -1
async function freshCode(): Promise<string> {
  if (totpSecret === undefined) throw new Error('the app is not on')
  for (;;) {
    const step = Math.floor(Date.now() / 30_000)
    for (const next of [step, step + 1]) {
      if (next > lastStep) {
        lastStep = next
        return totpCode(totpSecret, new Date(next * 30_000 + 1_000))
      }
    }
    await new Promise((resolve) => setTimeout(resolve, (step + 1) * 30_000 - Date.now() + 200))
  }
}

/**
 * What the form shows after the submit: each field marked invalid with its sentence, and the form's
 * alert.
 */
async function shown(form: Locator): Promise<{ fields: Record<string, string>; alert?: string }> {
  const fields: Record<string, string> = {}
  for (const input of await form.locator('[aria-invalid="true"]').all()) {
    const name = (await input.getAttribute('name')) ?? '?'
    const described = (await input.getAttribute('aria-describedby'))?.split(' ') ?? []
    const texts = await Promise.all(
      described.map((id) => form.page().locator(`[id="${id}"].field-error`).allTextContents()),
    )
    fields[name] = texts.flat().join(' | ')
  }
  const alert = (await form.locator('[role="alert"]').allTextContents()).join(' | ')
  return alert === '' ? { fields } : { fields, alert }
}

async function runCase(
  signedIn: Page,
  c: Case,
): Promise<{ fields: Record<string, string>; alert?: string }> {
  const page = c.signedOut ? signedOut : signedIn
  if (c.windowClosed) closeReauthenticationWindows()
  await page.goto(typeof c.path === 'string' ? c.path : c.path())
  await page.locator('h1').first().waitFor()
  await c.open?.(page)
  const form = c.form(page)
  await form.waitFor()
  for (const [name, value] of Object.entries(c.fill ?? {})) {
    const input = form.locator(`[name="${name}"]`).first()
    // Typed past `maxlength` on purpose: the service's limit is what is tested, as a script or an
    // old browser would send it.
    await input.evaluate((element) => element.removeAttribute('maxlength'))
    await input.fill(value ?? '')
  }
  await c.prepare?.(form)
  await form.getByRole('button', { name: c.submit, exact: true }).click()
  if (c.reauth) {
    const proof = dialogForm(page)
    await proof.locator('[name="current_password"]').fill(OWNER.password)
    await proof.getByRole('button', { name: de('reauth.submit'), exact: true }).click()
    await proof.waitFor({ state: 'detached' })
  }
  const wanted = Object.keys(c.expect.fields ?? {}).length + (c.expect.alert === undefined ? 0 : 1)
  await expect
    .poll(
      async () => {
        const now = await shown(form)
        return Object.keys(now.fields).length + (now.alert === undefined ? 0 : 1)
      },
      { timeout: 8_000 },
    )
    .toBeGreaterThanOrEqual(Math.min(wanted, 1))
  // Every invalid field at once: give the page a moment to mark them all, then read.
  const all = Object.keys(c.expect.fields ?? {}).length
  for (
    let waited = 0;
    waited < 3_000 && Object.keys((await shown(form)).fields).length < all;
    waited += 100
  )
    await page.waitForTimeout(100)
  return shown(form)
}

beforeAll(async () => {
  smtp = await startSmtpStandIn()
  // Named localhost: WebAuthn (the passkey cases) refuses an IP address as relying-party id.
  server = await startConsoleServer({}, { host: 'localhost' })
  browser = await openBrowser()
  const setup = await api('/api/auth/setup', { method: 'POST', body: OWNER })
  expect(setup.status).toBe(201)
  session = ((await setup.json()) as { token: string }).token
  token = (
    await arrange<{ token: string }>(
      '/api/tokens',
      {
        name: 'e2e-german-forms',
        permissions: ALL_TOKEN_PERMISSIONS,
        organization_boundary: 'all',
      },
      'POST',
      session,
    )
  ).token
  await arrange('/api/users/me', { language: 'de' }, 'PATCH')
  // A new mail server and sender take an interactive session and the owner's password.
  await arrange(
    '/api/admin/settings/smtp',
    {
      current_password: OWNER.password,
      enabled: true,
      host: '127.0.0.1',
      port: smtp.port,
      from_address: 'no-reply@example.com',
    },
    'PUT',
    session,
  )
  ids.colleague = (await arrange<{ id: string }>('/api/admin/users', COLLEAGUE)).id
  ids.org = (await arrange<{ id: string }>('/api/organizations', { name: 'Deutsche Formulare' })).id
  ids.team = (await arrange<{ id: string }>('/api/admin/teams', { name: 'Redaktion' })).id
  await arrange('/api/organizations', { name: 'Schon vergeben', slug: 'vergeben' })
  // A copyable reset link for the colleague (an interactive session and the owner's password), for
  // the reset page.
  const link = await arrange<{ url: string }>(
    `/api/admin/users/${ids.colleague}/password-reset/link`,
    { current_password: OWNER.password },
    'POST',
    session,
  )
  ids.resetToken = new URL(link.url).searchParams.get('token')!
  await arrange('/api/tags', { name: 'Arbeit' })
  await arrange('/api/tags', { name: 'Privat' })
  await arrange('/api/links', { url: 'https://example.com/vergeben', slug: 'vergeben' })
  await arrange('/api/links', {
    url: 'https://example.com/handbuch',
    title: 'Handbuch',
    slug: 'handbuch',
  })

  context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: { width: 1280, height: 900 },
    locale: 'de-DE',
  })
  page = await context.newPage()
  activity.set(page, recordActivity(page))
  cdp = await context.newCDPSession(page)
  // A case that finds nothing fails within seconds, not Playwright's 30.
  page.setDefaultTimeout(8_000)
  // The DevTools virtual authenticator answers the passkey cases.
  await cdp.send('WebAuthn.enable', { enableUI: false })
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  signedOut = await (
    await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 390, height: 844 },
      locale: 'de-DE',
    })
  ).newPage()
  signedOut.setDefaultTimeout(8_000)
  activity.set(signedOut, recordActivity(signedOut))
  await page.goto('/login')
  await page.locator('[name="email"]').fill(OWNER.email)
  await page.locator('[name="password"]').fill(OWNER.password)
  await page.getByRole('button', { name: de('login.submit'), exact: true }).click()
  await page.waitForURL(`${server.baseUrl}/links`)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await smtp?.close()
})

/** Fails on English or raw codes anywhere in the page's main area (or an open dialog). */
async function expectNoEnglish(page: Page, where: string): Promise<void> {
  const text = [
    await page.locator('main').innerText(),
    ...(await page.locator('[role="dialog"], [role="alertdialog"]').allInnerTexts()),
  ].join('\n')
  expect(text, where).not.toMatch(SCHEMA_ENGLISH)
  expect(text, where).not.toMatch(RAW_CODE)
  for (const message of ENGLISH_REASONS) expect(text, where).not.toContain(message)
}

describe("every form's errors in German", () => {
  it("knows the API's English reason messages it must not find", () => {
    expect(ENGLISH_REASONS.length).toBeGreaterThan(40)
    expect(ENGLISH_REASONS).toContain('The request is not valid.')
  })

  it('each form, submitted with invalid input, names every invalid field in German and shows no English', async () => {
    const observed: Record<string, unknown> = {}
    const expected: Record<string, unknown> = {}
    const started = Date.now()
    for (const c of CASES) {
      expected[c.name] = c.expect.alert === undefined ? { fields: c.expect.fields ?? {} } : c.expect
      try {
        observed[c.name] = await runCase(page, c)
        await expectNoEnglish(c.signedOut ? signedOut : page, c.name)
      } catch (error) {
        observed[c.name] = { failed: String(error).split('\n')[0] }
        console.log(
          `${c.name}: the page lately: ${activity.get(c.signedOut ? signedOut : page)?.()}`,
        )
      }
      console.log(`${c.name}: ${JSON.stringify(observed[c.name])}`)
    }
    console.log(
      `german-forms: ${CASES.length} forms in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
    expect(observed).toEqual(expected)
  }, 600_000)
})
