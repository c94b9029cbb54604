/**
 * WAL checkpoints between requests instead of inside a commit. SQLite's automatic checkpoint runs
 * in the commit that takes the WAL past 1,000 pages, so about one write in a hundred answered
 * ≈ 2.5 ms late while it copied 4 MiB into the database file and synced it (issue 30: that was the
 * p99 of an audited write). Here a commit only looks at how much of the WAL is not yet copied back —
 * mxFrame − nBackfill, two numbers in the shared-memory file's first 100 bytes
 * (https://sqlite.org/walformat.html, "The WAL-Index Format") — and past CHECKPOINT_FRAMES a
 * PASSIVE checkpoint runs at the next turn of the event loop, after the committing request has
 * answered and with the connection to itself, as https://sqlite.org/wal.html ("Application-Initiated
 * Checkpoints") suggests. The work is the same and so is the WAL's size; only who waits for it
 * changes. SQLite's own automatic checkpoint stays, at BACKSTOP_FRAMES, for a WAL that grows while
 * no turn comes (one very long transaction, another process writing).
 */
import fs from 'node:fs'
import os from 'node:os'
import type { DatabaseSync } from 'node:sqlite'

/** Frames (pages) left in the WAL before a checkpoint is due: SQLite's own default. */
export const CHECKPOINT_FRAMES = 1_000
/** SQLite's automatic checkpoint, kept as a bound on the WAL should the turn not come. */
export const BACKSTOP_FRAMES = 4 * CHECKPOINT_FRAMES

/** Where mxFrame (the WAL's last valid frame) sits in the wal-index header, and nBackfill after both header copies. */
const MX_FRAME_OFFSET = 16
const N_BACKFILL_OFFSET = 96
const READ_BYTES = N_BACKFILL_OFFSET + 4

/** The two callbacks the driver gives: take and give back its single connection (its FIFO mutex). */
export interface ConnectionLock {
  lock(): Promise<void>
  unlock(): void
}

export class WalCheckpointer {
  readonly #descriptor: number
  readonly #header = Buffer.alloc(READ_BYTES)
  readonly #readUInt32 = os.endianness() === 'LE' ? this.#header.readUInt32LE.bind(this.#header) : this.#header.readUInt32BE.bind(this.#header)
  #scheduled = false
  #closed = false

  /** For a database in a file (in WAL mode, its wal-index already open); none for an in-memory one, which has no WAL. */
  static open(database: DatabaseSync, connection: ConnectionLock): WalCheckpointer | undefined {
    const { file } = database.prepare('pragma database_list').get() as { file: string }
    return file === '' ? undefined : new WalCheckpointer(file, database, connection)
  }

  private constructor(
    file: string,
    private readonly database: DatabaseSync,
    private readonly connection: ConnectionLock,
  ) {
    database.exec(`pragma wal_autocheckpoint = ${BACKSTOP_FRAMES}`)
    this.#descriptor = fs.openSync(`${file}-shm`, 'r')
  }

  /** Frames written to the WAL and not yet copied into the database file. */
  backlog(): number {
    fs.readSync(this.#descriptor, this.#header, 0, READ_BYTES, 0)
    return this.#readUInt32(MX_FRAME_OFFSET) - this.#readUInt32(N_BACKFILL_OFFSET)
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
    fs.closeSync(this.#descriptor)
  }
}
