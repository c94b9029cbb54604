/**
 * WAL checkpoints between requests instead of inside a commit. SQLite's automatic checkpoint runs
 * in the commit that takes the WAL past 1,000 pages, so about one write in a hundred would answer
 * late while it copies 4 MiB into the database file and syncs it
 * (docs/decisions/0006-sqlite-checkpoints-between-requests.md). Here a commit only looks at how
 * much of the WAL is not yet copied back — mxFrame − nBackfill, two numbers in the shared-memory
 * file's first 100 bytes (https://sqlite.org/walformat.html, "The WAL-Index Format") — and past
 * CHECKPOINT_FRAMES a PASSIVE checkpoint runs at the next turn of the event loop, after the
 * committing request has answered and with the connection to itself, as https://sqlite.org/wal.html
 * ("Application-Initiated Checkpoints") suggests. The work is the same and so is the WAL's size;
 * only who waits for it changes. SQLite's own automatic checkpoint stays, at BACKSTOP_FRAMES, for a
 * WAL that grows while no turn comes (one very long transaction, another process writing). The two
 * numbers are read by the driver's look at the wal-index (db/drivers/sqlite-commit-watch.ts), which
 * the read cache already keeps open; with SQLITE_READ_CACHE=off there is no such look, and no
 * checkpointer: the checkpoints are SQLite's own.
 */
import type { DatabaseSync } from 'node:sqlite'

/** Frames (pages) left in the WAL before a checkpoint is due: SQLite's own default. */
export const CHECKPOINT_FRAMES = 1_000
/** SQLite's automatic checkpoint, kept as a bound on the WAL should the turn not come. */
export const BACKSTOP_FRAMES = 4 * CHECKPOINT_FRAMES

/**
 * The two callbacks the driver gives: take and give back its single connection (its FIFO mutex).
 */
export interface ConnectionLock {
  lock(): Promise<void>
  unlock(): void
}

export class WalCheckpointer {
  #scheduled = false
  #closed = false

  /** `backlog`: the frames not yet copied back, from the wal-index (CommitWatch.walBacklog). */
  constructor(
    private readonly database: DatabaseSync,
    private readonly connection: ConnectionLock,
    private readonly backlog: () => number,
  ) {
    database.exec(`pragma wal_autocheckpoint = ${BACKSTOP_FRAMES}`)
  }

  /** Called when the connection is given back after a unit of work that wrote. */
  afterWrite(): void {
    if (this.#scheduled || this.#closed || this.backlog() < CHECKPOINT_FRAMES) return
    this.#scheduled = true
    setImmediate(() => void this.#checkpoint())
  }

  async #checkpoint(): Promise<void> {
    await this.connection.lock()
    try {
      if (!this.#closed) this.database.exec('pragma wal_checkpoint(PASSIVE)')
    } catch {
      // Busy (another process checkpoints or holds a lock): the next commit past the mark tries
      // again, and the backstop bounds the WAL meanwhile. Nothing is lost either way.
    } finally {
      this.#scheduled = false
      this.connection.unlock()
    }
  }

  close(): void {
    this.#closed = true
  }
}
