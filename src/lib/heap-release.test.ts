import { describe, expect, it } from 'vitest'
import { createHeapRelease } from './heap-release.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('the collection after large work', () => {
  it('runs once the current turn is over, not inside the caller', async () => {
    let collections = 0
    const heap = createHeapRelease(() => collections++)
    heap.afterLargeWork()
    expect(collections).toBe(0)
    await nextTurn()
    expect(collections).toBe(1)
  })

  it('is shared by the requests that ask on the same turn, and runs again for a later one', async () => {
    let collections = 0
    const heap = createHeapRelease(() => collections++)
    heap.afterLargeWork()
    heap.afterLargeWork()
    heap.afterLargeWork()
    await nextTurn()
    expect(collections).toBe(1)
    heap.afterLargeWork()
    await nextTurn()
    expect(collections).toBe(2)
  })

  it('does nothing without a collection to run', async () => {
    const heap = createHeapRelease(undefined)
    expect(() => heap.afterLargeWork()).not.toThrow()
    await nextTurn()
  })
})
