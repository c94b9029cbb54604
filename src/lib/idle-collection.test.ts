/**
 * The idle collection against a real HTTP server: it runs once the requests stop and the heap has
 * grown, never while they keep arriving, and at most once per interval. Each case has its own
 * server and waits for real quiet periods, so the cases run side by side (their assertions throw;
 * none counts assertions or takes a snapshot, which would need the case's own `expect`).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, type TestContext } from 'vitest'
import { collectWhenIdle, type IdleCollectionOptions } from './idle-collection.js'

const QUIET_MS = 250
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Context = Pick<TestContext, 'onTestFinished'>

/**
 * A server answering every request at once, watched with a fake heap of `heap.size` bytes, closed
 * when the case ends.
 */
async function watched(
  { onTestFinished }: Context,
  heap: { size: number },
  options: Partial<IdleCollectionOptions> = {},
) {
  const collections: number[] = []
  const server = http.createServer((_req, res) => res.end('ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const stop = collectWhenIdle(server, {
    quietMs: QUIET_MS,
    minGrowthBytes: 1000,
    minIntervalMs: 0,
    heapSize: () => heap.size,
    collect: () => {
      collections.push(heap.size)
      heap.size = 100
    },
    ...options,
  })
  onTestFinished(async () => {
    stop()
    await new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as AddressInfo
  const get = async () => (await fetch(`http://127.0.0.1:${port}/`)).text()
  return { collections, get, stop }
}

describe.concurrent('collectWhenIdle', () => {
  it('collects once when the requests stop after the heap grew', async (context) => {
    const heap = { size: 100 }
    const { collections, get } = await watched(context, heap)
    heap.size = 5000
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([5000])
    await sleep(QUIET_MS * 3)
    expect(collections).toEqual([5000])
  })

  it('waits while requests keep arriving', async (context) => {
    const heap = { size: 100 }
    const { collections, get } = await watched(context, heap)
    heap.size = 5000
    const until = Date.now() + QUIET_MS * 5
    while (Date.now() < until) {
      await get()
      await sleep(QUIET_MS / 5)
    }
    expect(collections).toEqual([])
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([5000])
  })

  it('leaves a heap that grew less than the threshold', async (context) => {
    const heap = { size: 100 }
    const { collections, get } = await watched(context, heap)
    heap.size = 900
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([])
  })

  it('collects at the first quiet period whatever the growth, when asked to', async (context) => {
    const heap = { size: 100 }
    const { collections, get } = await watched(context, heap, {
      collectAtFirstQuiet: true,
    })
    heap.size = 900
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([900])
    heap.size = 900
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([900])
  })

  it('does not count the first quiet collection against the interval', async (context) => {
    const heap = { size: 100 }
    const { collections, get } = await watched(context, heap, {
      collectAtFirstQuiet: true,
      minIntervalMs: 60_000,
      now: () => 0,
    })
    heap.size = 900
    await get()
    await sleep(QUIET_MS * 4)
    heap.size = 5000
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([900, 5000])
    heap.size = 7000
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([900, 5000])
  })

  it('collects at most once per interval; a quiet period too soon waits for it', async (context) => {
    const heap = { size: 100 }
    let now = 0
    const { collections, get } = await watched(context, heap, {
      minIntervalMs: 60_000,
      now: () => now,
    })
    heap.size = 5000
    await get()
    await sleep(QUIET_MS * 4)
    heap.size = 7000
    now = 59_000
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([5000])
    // No request since: the collection runs once the interval has passed.
    now = 60_500
    await sleep(QUIET_MS * 3)
    expect(collections).toEqual([5000, 7000])
    // Requests again after the interval: the next quiet period collects at once.
    heap.size = 9000
    now = 121_000
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([5000, 7000, 9000])
  })

  it('stops watching when told', async (context) => {
    const heap = { size: 100 }
    const { collections, get, stop } = await watched(context, heap)
    stop()
    heap.size = 5000
    await get()
    await sleep(QUIET_MS * 4)
    expect(collections).toEqual([])
  })
})
