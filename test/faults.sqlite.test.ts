/**
 * The SQLite process killed with SIGKILL in the middle of a burst of writes: after a
 * restart the database opens, passes PRAGMA integrity_check, and holds every write that was
 * acknowledged (WAL with synchronous=NORMAL loses nothing when only the process dies).
 */
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from './helpers/database.js'
import { startServerProcess } from './helpers/process.js'

describe('SIGKILL during a burst of writes on SQLite', () => {
  it('keeps every acknowledged write and an intact database', async () => {
    const dataDir = makeTempDir()
    const env = {
      DATA_DIR: dataDir,
      RATE_LIMIT_GENERAL: '0',
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_ITERATIONS: '1',
    }
    const server = await startServerProcess(env)
    const setup = await fetch(`${server.baseUrl}/api/auth/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'ops@example.com',
        name: 'Ops',
        password: 'crash test passphrase',
      }),
    })
    const { token } = (await setup.json()) as { token: string }

    const acknowledged: string[] = []
    let stop = false
    const write = async (worker: number) => {
      for (let i = 0; !stop; i++) {
        const key = `crash.w${worker}.n${i}`
        try {
          const response = await fetch(`${server.baseUrl}/api/admin/settings/${key}`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ value: { worker, i } }),
          })
          if (response.status === 200) acknowledged.push(key)
        } catch {
          return // the connection died with the process
        }
      }
    }
    const writers = Array.from({ length: 6 }, (_, worker) => write(worker))
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5))
    server.child.kill('SIGKILL')
    stop = true
    await Promise.all(writers)
    await server.exited
    expect(acknowledged.length).toBeGreaterThanOrEqual(150)

    const file = path.join(dataDir, 'switchboard.db')
    const check = new DatabaseSync(file)
    expect(check.prepare('pragma integrity_check').get()).toEqual({ integrity_check: 'ok' })
    const stored = new Set(
      check
        .prepare("select key from settings where key like 'crash.%'")
        .all()
        .map((row) => row.key as string),
    )
    check.close()
    for (const key of acknowledged) expect(stored.has(key), key).toBe(true)

    const restarted = await startServerProcess(env)
    try {
      const response = await fetch(
        `${restarted.baseUrl}/api/admin/settings/${acknowledged.at(-1)}`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      )
      expect(response.status).toBe(200)
    } finally {
      await restarted.stop()
    }
  }, 60_000)
})
