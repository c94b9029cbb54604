/**
 * Canaries for the libraries' internals the service relies on, each test named after the internal
 * it checks, so that an update that moves one fails here by name rather than somewhere downstream
 * (docs/decisions/, the fenced internals). Against a server: internals.canary.postgres.test.ts
 * (pg's socket and row handlers at work) and internals.canary.sqlite.test.ts (the WAL-index).
 *
 * - pg: src/db/drivers/pg-hot-read.ts and pg-pipelined-reader.ts;
 * - @fastify/rate-limit: src/plugins/rate-limit.ts (the store's `child` and `incr`);
 * - the exact pins in package.json that keep both where these tests found them.
 */
import fs from 'node:fs'
import path from 'node:path'
import Fastify, { type FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import pg from 'pg'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '..')
const readJson = (file: string) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>
const manifest = readJson('package.json') as {
  engines: { node: string }
  dependencies: Record<string, string>
  overrides: Record<string, string>
}
const installed = (name: string) => readJson(`node_modules/${name}/package.json`).version

describe('exact pins of the libraries whose internals are used', () => {
  it.each(['pg', '@fastify/rate-limit'])(
    'package.json pins %s exactly, to the version installed',
    (name) => {
      expect(manifest.dependencies[name]).toMatch(/^\d+\.\d+\.\d+$/)
      expect(installed(name)).toBe(manifest.dependencies[name])
    },
  )

  it("package.json overrides pin pg-protocol (pg's messages) exactly, to the version installed", () => {
    expect(manifest.dependencies['pg-protocol']).toBeUndefined()
    expect(manifest.overrides['pg-protocol']).toMatch(/^\d+\.\d+\.\d+$/)
    expect(installed('pg-protocol')).toBe(manifest.overrides['pg-protocol'])
    expect(installed('pg')).toBe(manifest.dependencies.pg)
  })

  it('package.json engines is capped at the tested Node.js majors (22 from 22.16, 24)', () => {
    expect(manifest.engines.node).toBe('^22.16 || ^24')
  })
})

describe('pg Query internals (db/drivers/pg-hot-read.ts)', () => {
  const prototype = pg.Query.prototype as unknown as Record<string, unknown>

  it.each(['handleRowDescription', 'handleDataRow'])(
    'pg Query.prototype.%s(message) exists with one parameter',
    (method) => {
      expect(typeof prototype[method]).toBe('function')
      expect((prototype[method] as (...args: unknown[]) => unknown).length).toBe(1)
    },
  )

  it('pg Query.prototype.handleReadyForQuery and handleError call the query’s callback field', () => {
    const calls: unknown[][] = []
    const query = new pg.Query('select 1') as unknown as {
      callback: (...args: unknown[]) => void
      handleReadyForQuery(connection: unknown): void
      handleError(error: Error, connection: unknown): void
    }
    query.callback = (...args) => calls.push(args)
    query.handleReadyForQuery(null)
    expect(calls).toHaveLength(1)
    expect(calls[0]![0]).toBeNull()
    const failing = new pg.Query('select 1') as unknown as typeof query
    const error = new Error('refused')
    failing.callback = (...args) => calls.push(args)
    failing.handleError(error, { sync: () => undefined })
    expect(calls[1]![0]).toBe(error)
  })

  it('pg new Query(text) keeps the text and leaves name, values and rows (a row limit) unset', () => {
    const query = new pg.Query('select 1') as unknown as Record<string, unknown>
    expect(query).toMatchObject({ text: 'select 1' })
    expect(query.name).toBeUndefined()
    expect(query.values).toBeUndefined()
    expect(query.rows).toBeUndefined()
  })
})

interface Recorded {
  constructed: Array<Record<string, unknown>>
  children: Array<Record<string, unknown>>
  increments: unknown[][]
  keyedWith: Array<string | undefined>
  builtWith: Array<Record<string, unknown>>
}

/** A Fastify app with @fastify/rate-limit registered as plugins/rate-limit.ts does, recording. */
async function recordingApp(recorded: Recorded) {
  const app = Fastify()
  app.decorateRequest('who', '')
  // The authentication hook runs before the limit hooks: a route's own onRequest hooks come after.
  app.addHook('onRequest', async (request) => {
    ;(request as FastifyRequest & { who: string }).who = 'who-is-calling'
  })
  const store = {
    incr(...args: unknown[]) {
      recorded.increments.push(args)
      const callback = args[1] as (error: null, state: { current: number; ttl: number }) => void
      callback(null, { current: recorded.increments.length, ttl: 42_000 })
    },
    child(options: Record<string, unknown>) {
      recorded.children.push(options)
      return store
    },
  }
  await app.register(rateLimit, {
    global: true,
    max: 100,
    timeWindow: 60_000,
    hook: 'onRequest',
    keyGenerator: (request) => {
      const who = (request as FastifyRequest & { who?: string }).who
      recorded.keyedWith.push(who)
      return `caller:${who}`
    },
    store: class {
      constructor(options: Record<string, unknown>) {
        recorded.constructed.push(options)
        return store
      }
    } as never,
    errorResponseBuilder: (_request, context) => {
      recorded.builtWith.push(context as unknown as Record<string, unknown>)
      return Object.assign(new Error('limited'), { statusCode: 429 })
    },
  })
  await app.register(
    async (scope) => {
      scope.get('/limited', { config: { rateLimit: { max: 1, timeWindow: 120_000 } } }, () => 'ok')
    },
    { prefix: '/api/area' },
  )
  return app
}

describe('@fastify/rate-limit internals (plugins/rate-limit.ts)', () => {
  const recorded: Recorded = {
    constructed: [],
    children: [],
    increments: [],
    keyedWith: [],
    builtWith: [],
  }

  it('@fastify/rate-limit constructs options.store with new Store(options), once', async () => {
    const app = await recordingApp(recorded)
    await app.ready()
    expect(recorded.constructed).toHaveLength(1)
    expect(recorded.constructed[0]).toMatchObject({ max: 100, timeWindow: 60_000 })
    await app.close()
  })

  it('@fastify/rate-limit store.child(options) receives the route (full URL, method) as options.routeInfo', async () => {
    recorded.children.length = 0
    const app = await recordingApp(recorded)
    await app.ready()
    const routes = recorded.children.map(
      (options) => options.routeInfo as { method?: unknown; url?: unknown },
    )
    expect(routes).toContainEqual(
      expect.objectContaining({ method: 'GET', url: '/api/area/limited' }),
    )
    expect(recorded.children[0]).toMatchObject({ max: 1, timeWindow: 120_000 })
    await app.close()
  })

  it("@fastify/rate-limit calls store.incr(key, callback, timeWindow in ms) after the app's onRequest hooks, and errorResponseBuilder(request, context) with context.ttl in ms", async () => {
    recorded.increments.length = 0
    recorded.keyedWith.length = 0
    recorded.builtWith.length = 0
    const app = await recordingApp(recorded)
    expect((await app.inject({ url: '/api/area/limited' })).statusCode).toBe(200)
    expect((await app.inject({ url: '/api/area/limited' })).statusCode).toBe(429)
    expect(recorded.keyedWith).toEqual(['who-is-calling', 'who-is-calling'])
    const [key, callback, timeWindow] = recorded.increments[0]!
    expect(key).toBe('caller:who-is-calling')
    expect(typeof callback).toBe('function')
    expect(timeWindow).toBe(120_000)
    expect(recorded.builtWith).toHaveLength(1)
    expect(recorded.builtWith[0]).toMatchObject({ statusCode: 429, ttl: 42_000 })
    await app.close()
  })
})
