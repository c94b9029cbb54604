/**
 * An import that waits on the database longer than the idle-connection timeout still answers: a
 * second connection holds the links table while the import runs, over a real socket (inject() has
 * no connection to time out), with REQUEST_TIMEOUT_SECONDS at 1.
 */
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import { createSignedInUser, type SignedIn } from '../../../../test/helpers/factories.js'

const t = useTestApp({
  env: { REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '1', RATE_LIMIT_GENERAL: '0' },
})
const HELD_MS = 3_000
let baseUrl: string
let user: SignedIn

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  user = await createSignedInUser(t)
})

/** Holds an exclusive lock on the links table for `ms`, from a connection of its own. */
async function holdLinks(ms: number): Promise<{ taken: Promise<void>; released: Promise<void> }> {
  const client = new pg.Client({ connectionString: t.database.url })
  await client.connect()
  const taken = client.query('begin').then(() => client.query('lock table links in exclusive mode'))
  const released = taken
    .then(() => new Promise((resolve) => setTimeout(resolve, ms)))
    .then(() => client.query('commit'))
    .finally(() => client.end())
    .then(() => undefined)
  return { taken: taken.then(() => undefined), released }
}

const fileOf = (site: string) =>
  [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<DL><p>',
    ...Array.from({ length: 50 }, (_, i) => `<DT><A HREF="https://${site}/${i}">Slow ${i}</A>`),
    '</DL><p>',
  ].join('\n')

describe('an import that waits on the database', () => {
  it.each([
    [
      'the JSON request',
      '/api/links/import',
      JSON.stringify({ format: 'html', content: fileOf('json.example') }),
    ],
    ['the uploaded file', '/api/links/import/file?format=html', fileOf('file.example')],
  ])('%s: answered after the idle timeout has passed', async (_name, path, body) => {
    const lock = await holdLinks(HELD_MS)
    await lock.taken
    const started = performance.now()
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${user.token}`,
        'content-type': path.endsWith('/import') ? 'application/json' : 'application/octet-stream',
      },
      body,
    })
    const waited = performance.now() - started
    await lock.released
    expect(response.status).toBe(200)
    expect(((await response.json()) as { imported: number }).imported).toBe(50)
    // The socket was silent for longer than the idle timeout.
    expect(waited).toBeGreaterThan(HELD_MS - 500)
  })
})
