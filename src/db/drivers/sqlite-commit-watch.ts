/**
 * The SQLite read cache's commit watch: it notices other connections' commits, and the WAL's
 * backlog for the checkpointer, by reading the WAL-index header in the `-shm` file directly.
 *
 * Private dependency (SQLite as bundled in Node's node:sqlite — 3.50 in Node 24 — so it moves with
 * the Node version; checked by name in test/internals.canary.sqlite.test.ts):
 * - the WAL-index layout of https://sqlite.org/walformat.html ("The WAL-Index Format"): a header
 *   of 48 bytes at offset 0 of `-shm` that every commit rewrites, `mxFrame` at byte 16 and
 *   `nBackfill` at byte 96, in the host's byte order. It is SQLite's file format for connections
 *   that share memory, not an API. If a commit stopped changing those 48 bytes, a session, token
 *   or user that another instance revoked or disabled would keep working here, silently, until
 *   this instance wrote something itself. If mxFrame or nBackfill moved, checkpoints would run at
 *   the wrong moments (the WAL stays bounded by SQLite's own automatic checkpoint).
 * Switch back: SQLITE_READ_CACHE=off, which opens no commit watch at all (no read cache, and the
 * checkpoints are SQLite's own).
 */
import fs from 'node:fs'
import os from 'node:os'
import type { DatabaseSync } from 'node:sqlite'

/** The first copy of the wal-index header: bytes 0–47 of the `-shm` file. */
const WAL_INDEX_HEADER_BYTES = 48
/** mxFrame in the header; nBackfill after the header's two copies; what is read for both. */
const MX_FRAME_OFFSET = 16
const N_BACKFILL_OFFSET = 96
const WAL_BACKLOG_BYTES = N_BACKFILL_OFFSET + 4
const LITTLE_ENDIAN = os.endianness() === 'LE'
const readUInt32 = (buffer: Buffer, offset: number) =>
  LITTLE_ENDIAN ? buffer.readUInt32LE(offset) : buffer.readUInt32BE(offset)

/**
 * Whether another connection to the same file, in this process or another, has committed since
 * the last look. In WAL mode every commit rewrites the wal-index header at the start of the
 * `-shm` file — change counter, last valid frame, checksums, salts
 * (https://sqlite.org/walformat.html, "The WAL-Index Header"; the format every SQLite since 3.7.0
 * shares, on unix and Windows) — and that file is the connections' shared memory, so one read of
 * the header's first copy, which a writer updates last, shows every commit that has completed.
 * `PRAGMA data_version` answers the same question through SQLite's read lock (two fcntl calls and
 * an fstat), a large share of every cached read under load
 * (docs/decisions/0005-sqlite-read-cache.md). A header read in the middle of an update differs as
 * well, which costs a refill, never a missed commit. An in-memory database has no other connection.
 */
export class CommitWatch {
  readonly #descriptor: number | null
  readonly #seen = Buffer.alloc(WAL_INDEX_HEADER_BYTES)
  readonly #current = Buffer.alloc(WAL_INDEX_HEADER_BYTES)
  readonly #backlog = Buffer.alloc(WAL_BACKLOG_BYTES)

  constructor(database: DatabaseSync) {
    const { file } = database.prepare('pragma database_list').get() as { file: string }
    // The file is in WAL mode (openSqlite); its first read opens the wal-index, creating -shm.
    database.prepare('select count(*) from sqlite_schema').get()
    this.#descriptor = file === '' ? null : fs.openSync(`${file}-shm`, 'r')
  }

  /** Whether the database is a file, with a WAL (an in-memory one has neither). */
  get inFile(): boolean {
    return this.#descriptor !== null
  }

  /**
   * Frames written to the WAL and not yet copied into the database file: mxFrame (the header's last
   * valid frame) less nBackfill (the checkpoint information after the header's two copies), both in
   * the host's byte order (https://sqlite.org/walformat.html, "The WAL-Index Format"). For
   * sqlite-checkpoint.ts; 0 for an in-memory database.
   */
  walBacklog(): number {
    if (this.#descriptor === null) return 0
    fs.readSync(this.#descriptor, this.#backlog, 0, WAL_BACKLOG_BYTES, 0)
    return readUInt32(this.#backlog, MX_FRAME_OFFSET) - readUInt32(this.#backlog, N_BACKFILL_OFFSET)
  }

  committedSinceLastLook(): boolean {
    if (this.#descriptor === null) return false
    fs.readSync(this.#descriptor, this.#current, 0, WAL_INDEX_HEADER_BYTES, 0)
    if (this.#current.equals(this.#seen)) return false
    this.#current.copy(this.#seen)
    return true
  }

  close(): void {
    if (this.#descriptor !== null) fs.closeSync(this.#descriptor)
  }
}
