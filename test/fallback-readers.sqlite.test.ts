/**
 * SQLITE_READ_CACHE=off, the switch back from db/drivers/ on SQLite: the hot paths answer as with
 * the read cache, nothing reads SQLite's shared-memory file, and the WAL checkpoints are SQLite's
 * own (its default automatic checkpoint, instead of the checkpointer's backstop).
 */
import fs from 'node:fs'
import { sql } from 'kysely'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { BACKSTOP_FRAMES } from '../src/db/sqlite-checkpoint.js'
import type { Db } from '../src/db/schema.js'
import { startPeerInstance, useTestApp } from './helpers/app.js'
import { expectHotPathsToAnswer } from './helpers/hot-paths.js'

const t = useTestApp({ env: { SQLITE_READ_CACHE: 'off', RATE_LIMIT_GENERAL: '0' } })
afterAll(() => {
  vi.restoreAllMocks()
})

/** How many reads of a `-shm` file (the WAL-index) happen while `work` runs. */
async function sharedMemoryReadsDuring(work: () => Promise<void>): Promise<number> {
  const readSync = fs.readSync
  let reads = 0
  const spy = vi.spyOn(fs, 'readSync').mockImplementation((descriptor, ...rest) => {
    if (fs.readlinkSync(`/proc/self/fd/${descriptor}`).endsWith('-shm')) reads++
    return (readSync as (...args: unknown[]) => number)(descriptor, ...rest)
  })
  try {
    await work()
    return reads
  } finally {
    spy.mockRestore()
  }
}

const autocheckpoint = async (db: Db) =>
  (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0]!
    .wal_autocheckpoint

describe('SQLITE_READ_CACHE=off', () => {
  it('answers every hot path (session, sb_ token, MFA status, go redirect) and sees revocations at once', async () => {
    expect(t.config.database.readCache).toBe(false)
    expect(await sharedMemoryReadsDuring(() => expectHotPathsToAnswer(t))).toBe(0)
  })

  it("leaves WAL checkpoints to SQLite's automatic checkpoint at its default", async () => {
    expect(await autocheckpoint(t.deps.db)).toBe(1000)
  })

  it('is what tells the paths apart: with the cache on, the WAL-index is read, and the backstop set', async () => {
    const peer = await startPeerInstance(t, { SQLITE_READ_CACHE: 'on' })
    try {
      expect(
        await sharedMemoryReadsDuring(() => expectHotPathsToAnswer(t, peer.app)),
      ).toBeGreaterThan(0)
      expect(await autocheckpoint(peer.deps.db)).toBe(BACKSTOP_FRAMES)
    } finally {
      await peer.close()
    }
  })
})
