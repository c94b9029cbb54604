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
import { chromium, type Browser, type Page } from 'playwright-core'
import { spawn } from 'node:child_process'
import { assertBuilt, SERVER_ENTRY } from '../../test/helpers/built-server.ts'
import { AREAS } from '../src/account/token-catalogue.ts'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const AXE_SOURCE = fs.readFileSync(path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8')

export interface ConsoleServer {
  baseUrl: string
  /** The server's DATA_DIR (its SQLite database), for a test that must change what no request can, such as ending a re-authentication window. */
  dataDir: string
  output(): string
  stop(): Promise<void>
}

/** Waits for GET /api/health: start-up may take long while the whole suite loads the machine. */
async function waitUntilHealthy(baseUrl: string, exited: Promise<unknown>, output: () => string): Promise<void> {
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
export async function startConsoleServer(env: Record<string, string> = {}, options: { host?: 'localhost' } = {}): Promise<ConsoleServer> {
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

export function assertChromium(): void {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`)
}

export async function launchBrowser(): Promise<Browser> {
  assertChromium()
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
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
  await page.evaluate(`${AXE_SOURCE};0`)
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    })
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }))
  })
}

/**
 * Every permission an administrator's API token can carry (issue 28), for the tokens the tests use
 * to arrange things through the API (write implies read): the console's list of areas, which the
 * type-check holds to the API's permission enum (web/src/account/token-catalogue.ts).
 */
export const ALL_TOKEN_PERMISSIONS = AREAS.map((area) => `${area}:write` as const)
