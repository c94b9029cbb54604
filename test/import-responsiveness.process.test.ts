/**
 * One bookmark import must not freeze the service. The built server imports, over
 * a real socket, files built to be slow to parse (1 MiB of unclosed lists, of deep nesting, of huge
 * attributes), a file of 20 000 bookmarks (20 000 links written) and a 20 MiB export that is mostly
 * favicons, and the link dialog's title fetch reads a 256 KiB page of unclosed `<b>`, while
 * /api/health is asked every 50 ms, and the server's event loop is watched for the longest stretch
 * it ran without giving way (helpers/loop-watch.mjs). The server's resident memory is sampled
 * meanwhile (/proc/<pid>/status).
 */
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  deepNesting,
  firefoxExport,
  hugeAttributes,
  unclosedLists,
} from './helpers/bookmark-files.js'
import {
  createTestDatabase,
  makeTempDir,
  testEngine,
  type TestDatabase,
} from './helpers/database.js'
import { startServerProcess, type ServerProcess } from './helpers/process.js'

const LOOP_WATCH = path.resolve(import.meta.dirname, 'helpers/loop-watch.mjs')

const MIB = 1024 * 1024
/** The bound: the event loop is never held longer at a stretch. */
const HELD_MS = 100
/**
 * The loop is watched from inside the server process (helpers/loop-watch.mjs, preloaded by this
 * test only): the main thread's CPU time between two turns of a 5 ms timer. That is what holds a
 * waiting request, and nothing else: this suite runs beside other test files on two cores, where
 * a process can wait its turn for a CPU for hundreds of milliseconds, and the CPU time the server
 * spends while one health answer waits also holds turns that gave way while the test (the client)
 * waited for a CPU to send or read it. V8's concurrent marking and the libuv pool run beside the
 * loop on other threads without holding it, so only the main thread counts. The health answers'
 * wall-clock latency, less both ends' wait for a CPU meanwhile (schedstat), is held to a ceiling
 * that still fails a blocking import by far (1 MiB of unclosed lists held a blocking reader's loop
 * for 16 s), and also a main thread blocked in a system call, which CPU time cannot see.
 */
const WORST_LATENCY_MS = 1000

let server: ServerProcess
let database: TestDatabase
let token: string
let loopWatch: string

beforeAll(async () => {
  database = await createTestDatabase(makeTempDir())
  loopWatch = path.join(makeTempDir(), 'loop-watch.txt')
  server = await startServerProcess({
    DATA_DIR: makeTempDir(),
    NODE_OPTIONS: `--import=${LOOP_WATCH}`,
    LOOP_WATCH_FILE: loopWatch,
    ...(testEngine() === 'postgres' && { DATABASE_URL: database.url }),
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_ITERATIONS: '1',
    RATE_LIMIT_GENERAL: '0',
    // The title fetch below reads a page from this machine.
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  })
  const setup = await fetch(`${server.baseUrl}/api/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'importer@example.com',
      name: 'Importer',
      password: 'bookmarks by the thousand',
    }),
  })
  expect(setup.status).toBe(201)
  token = ((await setup.json()) as { token: string }).token
  // The readers are loaded by the first import of each format, once per process: not part of any
  // file's cost. (This also runs both from the built bundle, where they load from node_modules.)
  expect(
    (await upload('<!DOCTYPE NETSCAPE-Bookmark-file-1><A HREF="https://warm.example/">warm</A>'))
      .status,
  ).toBe(200)
  const json = await upload(JSON.stringify([{ url: 'https://warm.example/json' }]), 'json')
  expect(await json.json()).toMatchObject({ imported: 1, tags_created: 0, skipped: [] })
}, 60_000)

afterAll(async () => {
  await server?.stop('SIGKILL')
  await database?.drop()
})

function upload(body: string | Buffer, format = 'html'): Promise<Response> {
  return fetch(`${server.baseUrl}/api/links/import/file?format=${format}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body,
  })
}

/**
 * The longest stretch (CPU ms of the main thread) the server's event loop ran without giving way
 * between two wall-clock times; below the watch's floor of 10 ms, 0.
 */
function longestStretch(from: number, to: number): number {
  const lines = fs.readFileSync(loopWatch, 'utf8').split('\n').filter(Boolean)
  return Math.max(
    0,
    ...lines.flatMap((line) => {
      const [start, end, cpu] = line.split(' ').map(Number)
      return end! > from && start! < to ? [cpu!] : []
    }),
  )
}

/** How long a thread has waited for a CPU while runnable so far (/proc/…/schedstat), in ms. */
const queuedMs = (schedstat: string) =>
  Number(fs.readFileSync(schedstat, 'utf8').split(' ')[1]) / 1e6

/**
 * The server's main thread and this test's own (which sends the requests and reads the answers),
 * together.
 */
function bothQueuedMs(): number {
  const pid = server.child.pid
  return queuedMs(`/proc/${pid}/task/${pid}/schedstat`) + queuedMs('/proc/thread-self/schedstat')
}

function residentBytes(): number {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024
}

interface Observed<T> {
  result: T
  /** Each /api/health answer's latency, in ms. */
  health: number[]
  /** The longest stretch the server's event loop ran without giving way meanwhile, in CPU ms. */
  stretch: number
  /**
   * For each answer, how long the server's main thread and this test's waited for a CPU meanwhile
   * (the machine's share of the latency).
   */
  queued: number[]
  /** The largest growth of the server's RSS over its value at the start, in bytes. */
  rssGrowth: number
}

/**
 * Runs `work` while /api/health is asked every 50 ms (whether or not the last answer came) and RSS
 * is sampled.
 */
async function observe<T>(work: () => Promise<T>): Promise<Observed<T>> {
  const health: number[] = []
  const queued: number[] = []
  const pending: Array<Promise<void>> = []
  const ask = () => {
    const started = performance.now()
    const waited = bothQueuedMs()
    pending.push(
      fetch(`${server.baseUrl}/api/health`)
        .then((response) => response.text())
        .then(() => {
          const latency = performance.now() - started
          health.push(latency)
          queued.push(bothQueuedMs() - waited)
        }),
    )
  }
  const from = Date.now()
  const baseline = residentBytes()
  let peak = baseline
  const poll = setInterval(ask, 50)
  const sample = setInterval(() => (peak = Math.max(peak, residentBytes())), 10)
  let result: T
  try {
    ask()
    result = await work()
    // A last answer after the import's, so the end of the work is covered too.
    await sleep(60)
  } finally {
    clearInterval(poll)
    clearInterval(sample)
    await Promise.all(pending)
  }
  const stretch = longestStretch(from, Date.now())
  return { result, health, stretch, queued, rssGrowth: peak - baseline }
}

function expectResponsive(health: number[], stretch: number, queued: number[]): void {
  // The worst answer's time, split: the two ends waiting for a CPU, and the rest (the server's
  // work, this test's own, or the server blocked in a system call — which CPU time cannot show).
  const worst = health.indexOf(Math.max(...health))
  console.log(
    `health: ${health.length} answers, worst ${Math.round(health[worst]!)} ms (the two ends waited for a CPU ${queued[worst]!.toFixed(0)}); the loop ran at most ${stretch === 0 ? 'under 10' : stretch.toFixed(1)} ms without giving way`,
  )
  expect(stretch).toBeLessThan(HELD_MS)
  // The wall-clock ceiling, less what the machine explains: both ends' wait for a CPU (a CI run on
  // 27 November 2026 saw 1,230 ms for the 20 MiB import while the main thread ran 30 ms of it).
  // Time the server's main thread spent blocked in a system call is not excused.
  expect(Math.max(...health.map((latency, i) => latency - queued[i]!))).toBeLessThan(
    WORST_LATENCY_MS,
  )
}

describe.sequential('a bookmark import while /api/health is asked every 50 ms', () => {
  it.each([
    ['1 MiB of unclosed <DL><p>', unclosedLists(MIB)],
    ['1 MiB of nested elements', deepNesting(MIB)],
    ['1 MiB of attributes on one anchor', hugeAttributes(MIB)],
  ])('%s: answered at once, health never held', async (_name, file) => {
    const { result, health, stretch, queued } = await observe(async () => {
      const response = await upload(file)
      return { status: response.status, body: (await response.json()) as { imported: number } }
    })
    expect(result.status).toBe(200)
    expect(health.length).toBeGreaterThan(1)
    expectResponsive(health, stretch, queued)
  })

  it('20 000 bookmarks: all imported, health never held', async () => {
    const file = firefoxExport({ entries: 20_000, iconBytes: 0, perFolder: 500, start: 100_000 })
    const { result, health, stretch, queued } = await observe(async () => {
      const response = await upload(file)
      return {
        status: response.status,
        body: (await response.json()) as { imported: number; skipped: unknown[] },
      }
    })
    expect(result.status).toBe(200)
    expect(result.body.imported).toBe(20_000)
    expect(result.body.skipped).toEqual([])
    // The import takes a while (20 000 rows in one transaction), so health was asked many times.
    expect(health.length).toBeGreaterThan(5)
    expectResponsive(health, stretch, queued)
  }, 60_000)

  it.each(['json', 'html'])(
    'an export of 10 000 links as %s: whole, health never held',
    async (format) => {
      const { result, health, stretch, queued } = await observe(async () => {
        const response = await fetch(`${server.baseUrl}/api/links/export?format=${format}`, {
          headers: { authorization: `Bearer ${token}` },
        })
        return { status: response.status, body: await response.text() }
      })
      expect(result.status).toBe(200)
      const urls =
        format === 'json'
          ? (JSON.parse(result.body) as { links: unknown[]; truncated: boolean }).links.length
          : result.body.match(/<DT><A HREF="/g)!.length
      expect(urls).toBe(10_000)
      expect(health.length).toBeGreaterThan(1)
      expectResponsive(health, stretch, queued)
    },
    60_000,
  )

  it('a 20 MiB export that is mostly favicons: imported with RSS growing by less than 64 MiB, health never held', async () => {
    const file = Buffer.from(firefoxExport({ entries: 2000, iconBytes: 10_000, start: 200_000 }))
    expect(file.length).toBeGreaterThan(19 * MIB)
    expect(file.length).toBeLessThanOrEqual(20 * MIB)
    const { result, health, stretch, queued, rssGrowth } = await observe(async () => {
      const response = await upload(file)
      return { status: response.status, body: (await response.json()) as { imported: number } }
    })
    expect(result.status).toBe(200)
    expect(result.body.imported).toBe(2000)
    expect(rssGrowth).toBeLessThan(64 * MIB)
    expectResponsive(health, stretch, queued)
  }, 60_000)

  it('a client that goes away mid-upload: nothing imported, no failure logged, the server answers on', async () => {
    await new Promise<void>((resolve) => {
      const request = http.request(`${server.baseUrl}/api/links/import/file?format=html`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          'content-length': String(MIB),
        },
      })
      request.on('error', () => resolve())
      request.write(
        '<!DOCTYPE NETSCAPE-Bookmark-file-1><DT><A HREF="https://gone.example/">gone</A>\n',
        () => setTimeout(() => request.destroy(), 200),
      )
    })
    await sleep(200)
    const search = await fetch(`${server.baseUrl}/api/links?q=gone.example`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(search.status).toBe(200)
    expect(((await search.json()) as { items: unknown[] }).items).toEqual([])
    expect(server.output()).not.toContain('request failed unexpectedly')
  })

  it('a body declared over 20 MiB: 413 before any of it is sent, nothing imported', async () => {
    const before = await fetch(`${server.baseUrl}/api/links?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(before.status).toBe(200)
    // Only the headers go out: an answer can only come from the declared length.
    const answer = await new Promise<{
      status: number
      body: string
      connection: string | undefined
    }>((resolve, reject) => {
      const request = http.request(`${server.baseUrl}/api/links/import/file?format=html`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          'content-length': String(20 * MIB + 1),
        },
      })
      request.on('response', (response) => {
        let body = ''
        response.on('data', (chunk: Buffer) => (body += chunk.toString()))
        response.on('end', () =>
          resolve({ status: response.statusCode!, body, connection: response.headers.connection }),
        )
      })
      request.on('error', reject)
      request.write('<!DOCTYPE NETSCAPE-Bookmark-file-1><A HREF="https://never.example/">never</A>')
    })
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body)).toMatchObject({
      reason: 'PAYLOAD_TOO_LARGE',
      message: 'The file is larger than 20 MiB.',
    })
    expect(answer.connection).toBe('close')
    const search = await fetch(`${server.baseUrl}/api/links?q=never.example`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(((await search.json()) as { items: unknown[] }).items).toEqual([])
  })
})

const fetchTitle = (url: string) =>
  fetch(`${server.baseUrl}/api/links/fetch-title`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  }).then(async (response) => ({
    status: response.status,
    body: await response.json(),
  }))

describe.sequential('a title fetch while /api/health is asked every 50 ms', () => {
  let pages: http.Server
  let pageUrl: string
  beforeAll(async () => {
    // 256 KiB of unclosed <b> in a head that never ends, four at once: the reader reads all of it.
    const page = `<html><head>${'<b>'.repeat((256 * 1024) / 3)}`
    pages = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end(request.url === '/warm' ? '<title>warm</title>' : page)
    })
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
    pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/`
    // The reader is loaded by the first fetch, once per process: not part of the page's cost.
    expect((await fetchTitle(`${pageUrl}warm`)).body).toMatchObject({ title: 'warm' })
  })
  afterAll(async () => {
    pages.closeAllConnections()
    await new Promise((resolve) => pages.close(resolve))
  })

  it('4 fetches of a 256 KiB page of unclosed <b> at once: answered, health never held', async () => {
    const { result, health, stretch, queued } = await observe(() =>
      Promise.all([1, 2, 3, 4].map(() => fetchTitle(pageUrl))),
    )
    for (const answer of result)
      expect(answer).toEqual({ status: 200, body: { url: pageUrl, title: null } })
    expect(health.length).toBeGreaterThan(1)
    expectResponsive(health, stretch, queued)
  })
})
