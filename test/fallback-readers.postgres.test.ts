/**
 * POSTGRES_HOT_READS=pool, the switch back from db/drivers/ on PostgreSQL: the hot paths answer as
 * with the pipelined reader, and the reads really take pg's pool with pg's own row handling — no
 * connection in pipeline mode, no query of the service's own Query class.
 */
import pg from 'pg'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { startPeerInstance, useTestApp } from './helpers/app.js'
import { expectHotPathsToAnswer } from './helpers/hot-paths.js'

const t = useTestApp({ env: { POSTGRES_HOT_READS: 'pool', RATE_LIMIT_GENERAL: '0' } })
afterAll(() => {
  vi.restoreAllMocks()
})

interface Seen {
  pipelined: boolean
  ownRowHandling: boolean
  hotRead: boolean
}

/** Every query pg's clients run while `work` runs: on which connection, and read by whom. */
async function queriesDuring(work: () => Promise<void>): Promise<Seen[]> {
  const query = vi.spyOn(pg.Client.prototype, 'query')
  try {
    await work()
    return query.mock.calls.map(([config], i) => {
      const submitted = config as unknown as Record<string, unknown>
      return {
        pipelined: (query.mock.contexts[i] as { pipeline?: boolean }).pipeline === true,
        ownRowHandling:
          submitted instanceof pg.Query &&
          submitted.handleDataRow !==
            (pg.Query.prototype as { handleDataRow?: unknown }).handleDataRow,
        hotRead: typeof submitted.name === 'string' && submitted.name.startsWith('sb_'),
      }
    })
  } finally {
    query.mockRestore()
  }
}

describe('POSTGRES_HOT_READS=pool', () => {
  it('answers every hot path (session, sb_ token, MFA status, go redirect) and sees revocations at once', async () => {
    expect(t.config.database.hotReads).toBe('pool')
    const seen = await queriesDuring(() => expectHotPathsToAnswer(t))
    expect(seen.some((query) => query.hotRead)).toBe(true)
    expect(seen.filter((query) => query.pipelined)).toEqual([])
    expect(seen.filter((query) => query.ownRowHandling)).toEqual([])
  })

  it('is what tells the reads apart: by default they run pipelined, with the own row handling', async () => {
    const peer = await startPeerInstance(t, { POSTGRES_HOT_READS: 'pipelined' })
    try {
      const seen = await queriesDuring(() => expectHotPathsToAnswer(t, peer.app))
      // t's own instance (pool) sets the scene and revokes; the peer's reads are pipelined.
      const hot = seen.filter((query) => query.hotRead)
      expect(hot.some((query) => query.pipelined && query.ownRowHandling)).toBe(true)
    } finally {
      await peer.close()
    }
  })
})
