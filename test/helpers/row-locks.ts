/**
 * Race tests on PostgreSQL: a transaction held open at a chosen point (a row lock taken, a write
 * not yet committed), and whether a request started meanwhile waited for it.
 */
import type { Kysely } from 'kysely'
import type { Database, Executor } from '../../src/db/schema.js'

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A function that says whether `promise` has settled yet. */
export function settled(promise: Promise<unknown>): () => boolean {
  let done = false
  void promise.finally(() => (done = true))
  return () => done
}

/** A transaction of the test's own, open until `release` is called. */
export interface HeldTransaction {
  /** Resolves once the transaction's first step is done (its locks are held). */
  ready: Promise<void>
  release(): void
  /** The transaction's end: committed after `release`, or failed. */
  done: Promise<void>
}

/**
 * Runs `step` in a transaction that stays open until `release` is called, then runs `after` in
 * it and commits.
 */
export function holdOpen(
  db: Kysely<Database>,
  step: (tx: Executor) => Promise<void>,
  after?: (tx: Executor) => Promise<void>,
): HeldTransaction {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let stepped!: () => void
  const ready = new Promise<void>((resolve) => (stepped = resolve))
  const done = db.transaction().execute(async (tx) => {
    await step(tx)
    stepped()
    await held
    await after?.(tx)
  })
  return { ready, release, done }
}

/**
 * A FOR SHARE lock on a link until released: a writer that locks the link for update waits for
 * it, another FOR SHARE lock is granted beside it.
 */
export function shareLockOnLink(db: Kysely<Database>, linkId: string): HeldTransaction {
  return holdOpen(db, async (tx) => {
    await tx.selectFrom('links').select('id').where('id', '=', linkId).forShare().execute()
  })
}

/**
 * Starts `racing` once `holder` holds its locks, notes whether it is still unanswered after
 * `ms`, then lets `holder` commit; answers whether `racing` waited, and its answer.
 */
export async function raceAgainst<T>(
  holder: HeldTransaction,
  racing: () => Promise<T>,
  ms = 300,
): Promise<{ waited: boolean; answer: T }> {
  await holder.ready
  const answer = racing()
  const answered = settled(answer)
  await pause(ms)
  const waited = !answered()
  holder.release()
  await holder.done
  return { waited, answer: await answer }
}
