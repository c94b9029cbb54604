/**
 * The audit monitor at start: the whole integrity check, its result recorded, and then one
 * memory-reducing collection asked of `deps.heap` (lib/heap-release.ts), which runs it on a turn of
 * its own rather than at the end of the check's last part.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { standaloneDeps, type StandaloneDeps } from '../../../test/helpers/standalone-deps.js'
import { installAuditMonitor } from './monitor.js'
import { readMonitor } from './tree.repo.js'

let standalone: StandaloneDeps
let app: FastifyInstance

beforeAll(async () => {
  standalone = await standaloneDeps()
})

afterAll(async () => {
  await app?.close()
  await standalone?.close()
})

describe('the audit monitor at start', () => {
  it('records the whole check, then asks for one memory-reducing collection', async () => {
    const { deps } = standalone
    const recordedWhenAsked: (string | null)[] = []
    deps.heap = {
      afterLargeWork: () => {
        void readMonitor(deps.db).then((state) => recordedWhenAsked.push(state.checkedAt))
      },
    }
    expect((await readMonitor(deps.db)).checkedAt).toBeNull()
    app = Fastify()
    installAuditMonitor(app, deps)
    await app.ready()

    await expect.poll(() => recordedWhenAsked.length, { timeout: 10_000 }).toBe(1)
    const state = await readMonitor(deps.db)
    expect(state.ok).toBe(true)
    expect(recordedWhenAsked).toEqual([state.checkedAt])
  })
})
