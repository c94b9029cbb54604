/**
 * What the console's browser tests and the screenshots share: the built server (dist/) started as
 * a process on a fresh SQLite data directory, Debian's Chromium driven by playwright-core (no
 * browser download), and an axe-core pass over a page.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
  type Request,
} from 'playwright-core'
import { spawn } from 'node:child_process'
import { assertBuilt, SERVER_ENTRY } from '../../test/helpers/built-server.ts'
import { AREAS } from '../src/account/token-catalogue.ts'

/** Debian's Chromium, the browser people run: the screenshots (`npm run screenshots`) use it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell'
/**
 * The tests' browser: Debian's headless shell of the same Chromium (package
 * chromium-headless-shell: the same Blink and V8 without the browser's own interface), where
 * installed; on a processor-bound CI machine it spends far less CPU than the whole browser
 * (docs/decisions/0075-tests-on-chromiums-headless-shell.md).
 */
export const TEST_CHROMIUM =
  process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM)
const AXE_SOURCE = fs.readFileSync(
  path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'),
  'utf8',
)

export interface ConsoleServer {
  baseUrl: string
  /**
   * The server's DATA_DIR (its SQLite database), for a test that must change what no request can,
   * such as ending a re-authentication window.
   */
  dataDir: string
  output(): string
  stop(): Promise<void>
}

/** Waits for GET /api/health: start-up may take long while the whole suite loads the machine. */
async function waitUntilHealthy(
  baseUrl: string,
  exited: Promise<unknown>,
  output: () => string,
): Promise<void> {
  let gone = false
  void exited.then(() => (gone = true))
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the server exited before it answered:\n${output()}`)
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the server did not answer within 90 s:\n${output()}`)
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/**
 * The built server on 127.0.0.1 with its PUBLIC_URL, so cookies and redirects name itself.
 * `host: 'localhost'` names it http://localhost:<port> instead (still listening on 127.0.0.1):
 * WebAuthn refuses an IP address as relying-party id, so passkey tests browse by name.
 */
export async function startConsoleServer(
  env: Record<string, string> = {},
  options: { host?: 'localhost' } = {},
): Promise<ConsoleServer> {
  const port = await freePort()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-console-'))
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`
  assertBuilt()
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      PUBLIC_URL: baseUrl,
      LOG_LEVEL: 'warn',
      // The real algorithm at its lowest cost, as the rest of the suite uses it.
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_ITERATIONS: '1',
      // The stand-in SMTP server and identity provider listen on 127.0.0.1.
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitUntilHealthy(`http://127.0.0.1:${port}`, exited, () => output)
  return {
    baseUrl,
    dataDir,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * What a page did lately — its API answers (method, path, status, milliseconds), navigations,
 * script errors and console errors — and which of its requests (any kind, scripts too) were still
 * unanswered, for a failed wait to say where the page went instead of only "timed out".
 */
export function recordActivity(page: Page, keep = 12): () => string {
  const lines: string[] = []
  const note = (line: string) => {
    lines.push(line)
    if (lines.length > keep) lines.shift()
  }
  const started = new Map<object, number>()
  const unanswered = new Map<Request, number>()
  page.on('request', (request) => {
    started.set(request, Date.now())
    unanswered.set(request, Date.now())
  })
  page.on('requestfinished', (request) => unanswered.delete(request))
  page.on('requestfailed', (request) => unanswered.delete(request))
  page.on('console', (message) => {
    if (message.type() === 'error') note(`console error: ${message.text().slice(0, 200)}`)
  })
  page.on('response', (response) => {
    const url = new URL(response.url())
    if (!url.pathname.startsWith('/api/') && response.request().resourceType() !== 'document')
      return
    const began = started.get(response.request())
    note(
      `${response.request().method()} ${url.pathname} → ${response.status()}${began === undefined ? '' : ` (${Date.now() - began} ms)`}`,
    )
  })
  page.on('requestfailed', (request) =>
    note(
      `${request.method()} ${new URL(request.url()).pathname} failed: ${request.failure()?.errorText ?? '?'}`,
    ),
  )
  page.on(
    'framenavigated',
    (frame) => frame === page.mainFrame() && note(`at ${new URL(frame.url()).pathname}`),
  )
  page.on('pageerror', (error) => note(`page error: ${error.message}`))
  const stillWaiting = () =>
    [...unanswered].map(
      ([request, began]) =>
        `unanswered ${request.method()} ${new URL(request.url()).pathname} (${Date.now() - began} ms)`,
    )
  return () => [`url ${new URL(page.url()).pathname}`, ...lines, ...stillWaiting()].join('; ')
}

/**
 * Waits for the signed-in frame after a sign-in; a failure says what the page showed and did
 * (`lately`: the page's `recordActivity`).
 */
export async function waitForSignedInFrame(page: Page, lately: () => string): Promise<void> {
  await page
    .locator('.topbar')
    .waitFor({ timeout: 30_000 })
    .catch(async (error: unknown) => {
      const shown = await page
        .evaluate(() => document.body.innerText.replace(/\s+/g, ' ').slice(0, 300))
        .catch(() => '(unreadable)')
      throw new Error(`no signed-in frame; the page showed "${shown}"; ${lately()}`, {
        cause: error,
      })
    })
}

export function assertChromium(executable = CHROMIUM): void {
  if (!fs.existsSync(executable))
    throw new Error(
      `${executable} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`,
    )
}

/**
 * `extraArgs`: further Chromium switches, e.g. `--host-resolver-rules=MAP go 127.0.0.1`;
 * `executable`: the whole browser (the screenshots) unless told otherwise.
 */
export async function launchBrowser(
  extraArgs: string[] = [],
  executable = CHROMIUM,
): Promise<Browser> {
  assertChromium(executable)
  return chromium.launch({
    executablePath: executable,
    headless: true,
    args: [
      ...extraArgs,
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/**
 * A test file's view of the worker's Chromium: its contexts are its own (fresh cookies, storage
 * and cache), and `close()` closes them, not the browser.
 */
export interface FileBrowser {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>
  close(): Promise<void>
}

/**
 * The browsers of this process, by their extra switches. The console's test files run one after
 * another in a worker that keeps its modules (`isolate: false` in vitest.config.ts), so the
 * browser launched for the first file serves the next ones, each in contexts of its own (on a
 * loaded 2-core machine a launch took 0.9–1.6 s and its close 0.2–0.3 s, a context 0.3–0.8 s).
 * A browser that crashed or was closed is launched again for the next file. A browser ends with
 * its worker: Chromium exits when its DevTools pipe to this process closes.
 */
const browsers = new Map<string, Promise<Browser>>()

/** The Chromium a test file uses, shared with the files before and after it in this worker. */
export async function openBrowser(extraArgs: string[] = []): Promise<FileBrowser> {
  const key = extraArgs.join(' ')
  let browser = await browsers.get(key)?.catch(() => undefined)
  if (browser === undefined || !browser.isConnected()) {
    const launched = launchBrowser(extraArgs, TEST_CHROMIUM)
    browsers.set(key, launched)
    browser = await launched.catch((error: unknown) => {
      browsers.delete(key)
      throw error
    })
  }
  const contexts = new Set<BrowserContext>()
  return {
    async newContext(options) {
      const context = await browser.newContext(options)
      contexts.add(context)
      context.once('close', () => contexts.delete(context))
      return context
    },
    async close() {
      await Promise.all([...contexts].map((context) => context.close()))
    },
  }
}

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/**
 * axe-core's WCAG 2.x A/AA rules over the page. The script is evaluated through the DevTools
 * protocol, which the page's CSP does not govern: the console itself still runs under its CSP.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Once per document: a check runs axe in both themes, and the console changes pages without
  // loading a new document (in admin.e2e: 24 injections instead of 46, 5.7 → 3.1 s).
  const loaded = await page.evaluate(
    () => typeof (window as unknown as { axe?: { run?: unknown } }).axe?.run === 'function',
  )
  if (!loaded) await page.evaluate(`${AXE_SOURCE};0`)
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> }
      }
    ).axe
    const result = await axe.run(document, {
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
      },
      resultTypes: ['violations'],
    })
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }))
  })
}

/**
 * Every permission an administrator's API token can carry, for the tokens the tests use
 * to arrange things through the API (write implies read): the console's list of areas, which the
 * type-check holds to the API's permission enum (web/src/account/token-catalogue.ts).
 */
export const ALL_TOKEN_PERMISSIONS = AREAS.map((area) => `${area}:write` as const)

export interface ApiInit {
  method?: string
  /** A bearer credential: a session's JWT or an sb_ API token. */
  token?: string
  /** Sent as JSON. */
  body?: unknown
}

/** One request to the server's API, as a test arranges or checks things; the answer as it came. */
export function apiRequest(
  server: ConsoleServer,
  path: string,
  init: ApiInit = {},
): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
}

/**
 * A client that arranges with one token: the answer's JSON ({} for 204); a failed request throws,
 * naming it.
 */
export type ArrangingApi = (
  path: string,
  init?: Omit<ApiInit, 'token'>,
) => Promise<Record<string, unknown>>

export function arrangingApi(server: ConsoleServer, token: string): ArrangingApi {
  return async (path, init = {}) => {
    const response = await apiRequest(server, path, { ...init, token })
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
    return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>)
  }
}

/**
 * A fresh instance's first administrator (POST /api/auth/setup): their session's JWT, and an API
 * token of theirs with every permission for all organizations, to arrange things through the API.
 */
export async function setUpAdministrator(
  server: ConsoleServer,
  who: { name: string; email: string; password: string },
): Promise<{ session: string; token: string }> {
  const setup = await apiRequest(server, '/api/auth/setup', { method: 'POST', body: who })
  if (setup.status !== 201)
    throw new Error(`/api/auth/setup: ${setup.status} ${await setup.text()}`)
  const session = ((await setup.json()) as { token: string }).token
  const created = await arrangingApi(server, session)('/api/tokens', {
    method: 'POST',
    body: {
      name: 'e2e arrangements',
      permissions: ALL_TOKEN_PERMISSIONS,
      organization_boundary: 'all',
    },
  })
  return { session, token: created.token as string }
}

/** The sign-in form's labels in a language of the console. */
export const SIGN_IN_LABELS = {
  en: { email: 'Email address', password: 'Password', submit: 'Sign in' },
  de: { email: 'E-Mail-Adresse', password: 'Passwort', submit: 'Anmelden' },
} as const

/** Fills in and sends the sign-in form the page shows. */
export async function signIn(
  page: Page,
  who: { email: string; password: string },
  labels: (typeof SIGN_IN_LABELS)[keyof typeof SIGN_IN_LABELS] = SIGN_IN_LABELS.en,
): Promise<void> {
  await page.getByLabel(labels.email).fill(who.email)
  await page.getByLabel(labels.password, { exact: true }).fill(who.password)
  await page.getByRole('button', { name: labels.submit, exact: true }).click()
}

/**
 * A fresh console: the built server, Chromium, and `administrator` set up as the instance's first
 * administrator, with `api` arranging things as them.
 */
export async function startConsoleAs(administrator: {
  name: string
  email: string
  password: string
}): Promise<{ server: ConsoleServer; browser: FileBrowser; api: ArrangingApi }> {
  const server = await startConsoleServer()
  const browser = await openBrowser()
  const api = arrangingApi(server, (await setUpAdministrator(server, administrator)).token)
  return { server, browser, api }
}

/**
 * `member` made a person by the administrator of `api`, and a team named `name` of the two of them.
 */
export async function createTeamWithMember(
  api: ArrangingApi,
  member: { name: string; email: string; password: string },
  name: string,
): Promise<{ member: Record<string, unknown>; team: { id: string } }> {
  const created = await api('/api/admin/users', { method: 'POST', body: member })
  const team = (await api('/api/admin/teams', { method: 'POST', body: { name } })) as {
    id: string
  }
  const me = await api('/api/users/me')
  for (const userId of [me.id, created.id])
    await api(`/api/admin/teams/${team.id}/members`, { method: 'POST', body: { user_id: userId } })
  return { member: created, team }
}

/**
 * A page in a context of its own (at `viewport`, 1280 × 800 unless given, in English), signed in
 * as `who` and on the Links page. `errors` collects the page's script errors; `defaultTimeout`
 * replaces playwright's 30 s; `watch` sees the page before it loads anything.
 */
export async function signedInLinksPage(
  server: ConsoleServer,
  browser: FileBrowser,
  who: { email: string; password: string },
  options: {
    viewport?: { width: number; height: number }
    errors?: string[]
    defaultTimeout?: number
    watch?: (page: Page) => void
  } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: server.baseUrl,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    locale: 'en-US',
  })
  const page = await context.newPage()
  if (options.defaultTimeout !== undefined) page.setDefaultTimeout(options.defaultTimeout)
  const errors = options.errors
  if (errors !== undefined) page.on('pageerror', (error) => errors.push(error.message))
  options.watch?.(page)
  await page.goto('/login')
  await signIn(page, who)
  await page.waitForURL(`${server.baseUrl}/links`)
  return { context, page }
}
