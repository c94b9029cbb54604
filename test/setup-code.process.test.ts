/**
 * The setup code as an operator sees it: a fresh instance prints its setup code on the terminal
 * (stderr, plain text) and never into the JSON log on stdout, which log shippers collect; the code
 * works from another address and opens nothing once used.
 */
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, makeTempDir, testEngine } from './helpers/database.js'
import { startServerProcess, type ServerProcess } from './helpers/process.js'

const running: ServerProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')))
})

/** Resolves once `read()` matches, or fails after 10 s with what was read. */
async function waitFor(read: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const match = pattern.exec(read())
    if (match !== null) return match
    if (Date.now() > deadline) throw new Error(`never matched ${pattern}:\n${read()}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('the setup code of a fresh instance', () => {
  it('is printed on stderr, not in the JSON log; a proxied request needs it', async () => {
    const dataDir = path.join(makeTempDir(), 'data')
    const database = await createTestDatabase(makeTempDir())
    const env = {
      DATA_DIR: dataDir,
      ...(testEngine() === 'postgres' && { DATABASE_URL: database.url }),
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_ITERATIONS: '1',
    }
    const server = await startServerProcess(env)
    running.push(server)
    const [, code] = await waitFor(server.stderr, /^ {4}([A-Z0-9]{5}(?:-[A-Z0-9]{5}){3})$/m)
    // The JSON log says where the code is, but holds it in no form.
    await waitFor(server.stdout, /setup code printed on the terminal/)
    for (const line of server.stdout().trim().split('\n'))
      expect(() => JSON.parse(line)).not.toThrow()
    expect(server.stdout()).not.toContain(code!)
    expect(server.stdout()).not.toContain(code!.replaceAll('-', ''))

    // Through a proxy on this machine (here: its header) the peer is loopback, yet the code is
    // required.
    const admin = { email: 'admin@example.com', name: 'Admin', password: 'first start passphrase' }
    const post = (body: object) =>
      server.fetch('/api/auth/setup', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-real-ip': '203.0.113.5' },
        body: JSON.stringify(body),
      })
    const refused = await post(admin)
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { reason: string }).reason).toBe('SETUP_CODE_REQUIRED')
    expect((await post({ ...admin, setup_code: code })).status).toBe(201)

    // Set up: a restart prints no code.
    expect(await server.stop()).toBe(0)
    const again = await startServerProcess(env)
    running.push(again)
    expect((await again.fetch('/api/health/ready')).status).toBe(200)
    expect(again.stderr()).not.toMatch(/setup code/i)
    expect(again.stdout()).not.toMatch(/setup code/i)
    expect(await again.stop()).toBe(0)
    await database.drop()
  })
})
