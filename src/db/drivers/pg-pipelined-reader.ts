/**
 * The pipelined hot-read connections: pg clients in pipeline mode whose socket is corked for the
 * rest of an event-loop turn, so that every read written in that turn leaves in one system call.
 *
 * Private dependencies (pg 8.23.1, pinned exactly in package.json; each checked by name in
 * test/internals.canary.postgres.test.ts):
 * - `client.connection.stream`: the socket pg writes a query's messages to, which the code corks
 *   (`writableCorked`, `cork()`, `uncork()`). If pg moved or wrapped it, reading `stream` would
 *   fail every hot read (each would answer 503); if it buffered elsewhere, the reads would still
 *   be answered, one write each.
 * - the read rows through `hotReadClass` (pg-hot-read.ts, with its own list).
 * `pipeline: true` and pg-protocol's pipelined Sync per query are pg's public API since 8.23.
 * Switch back: POSTGRES_HOT_READS=pool, which opens none of these connections and leaves the
 * planner settings below (HOT_READ_SETTINGS) unset.
 */
import { createRequire } from 'node:module'
import type pg from 'pg'
import type * as PgModule from 'pg'
import { HOT_READ_SETTINGS, IDLE_MS, clientSettings, type PreparedReader } from '../postgres.js'
import { hotReadClass } from './pg-hot-read.js'

// The driver is loaded only when DATABASE_URL names PostgreSQL.
const require = createRequire(import.meta.url)

// Reads in flight on a pipelined connection before the next connection takes the overflow. One
// server process answers an instance's reads faster than the instance can ask: a second one in
// turn only adds wake-ups and halves each write's batch. It takes over when the first stalls (a
// read waiting on the disk holds up every read behind it) or falls behind
// (docs/decisions/0009-pipelined-postgresql-reads.md).
const SPILL_AT = 16

export interface PipelinedReader {
  read: PreparedReader
  close(): Promise<void>
}

interface Lane {
  client: pg.Client
  ready: Promise<pg.Client>
  pending: number
  lastUsed: number
}

type CorkableSocket = NodeJS.WritableStream & {
  writableCorked: number
  cork(): void
  uncork(): void
}

/** The socket pg writes this client's messages to (see the header: a private field of pg). */
export function socketOf(client: pg.Client): CorkableSocket {
  return (client as unknown as { connection: { stream: CorkableSocket } }).connection.stream
}

/** Corks the socket for the rest of this event-loop turn: what is written then leaves at once. */
function corkForThisTurn(stream: CorkableSocket): void {
  if (stream.writableCorked > 0) return
  stream.cork()
  setImmediate(() => stream.uncork())
}

/**
 * The per-request hot reads (db/precompiled.ts: authentication, token, go redirect — each one
 * indexed lookup) as named prepared statements on a few long-lived connections in pg's pipeline
 * mode: a read is written without waiting for the answers before it, and the reads of one
 * event-loop turn (every request whose bytes arrived in that turn) leave in one write, their
 * answers come back in one read. The first connection takes every read until SPILL_AT are in flight
 * on it; the second is opened for the overflow only, so that at an ordinary load a turn's reads
 * stay one batch for one server process. The statement is parsed once per connection, then only
 * Bind/Execute/Sync travel, each read with its own Sync, so one failing read fails alone. Against
 * pg's pool with named statements it costs about a third of the client CPU per read
 * (docs/decisions/0009-pipelined-postgresql-reads.md). A connection that fails (server
 * restart, network) fails the reads in flight — they answer 503 like any other — and the next read
 * opens a new one; one unused for 30 s is closed.
 */
export function createPipelinedReader(
  url: string,
  lanes: number,
  onError: (error: Error) => void,
): PipelinedReader {
  const pg = require('pg') as typeof PgModule.default
  const settings = clientSettings(url, pg)
  const HotRead = hotReadClass(
    pg,
    settings.types.getTypeParser as (
      oid: number,
      format?: 'text' | 'binary',
    ) => (text: string) => unknown,
  )
  const slots: Array<Lane | null> = Array.from({ length: lanes }, () => null)
  let closed = false

  const open = (index: number): Lane => {
    const client = new pg.Client({ ...settings, pipeline: true })
    const ready = client
      .connect()
      .then(() => client.query(HOT_READ_SETTINGS))
      .then(() => client)
    const lane: Lane = { client, ready, pending: 0, lastUsed: Date.now() }
    const drop = () => {
      if (slots[index] === lane) slots[index] = null
    }
    // A dead connection is forgotten at once; its reads in flight fail through pg itself.
    client.on('error', (error) => {
      drop()
      onError(error)
    })
    client.on('end', drop)
    lane.ready.catch(drop)
    slots[index] = lane
    return lane
  }

  const sweep = setInterval(() => {
    const now = Date.now()
    slots.forEach((lane, index) => {
      if (lane === null || lane.pending > 0 || now - lane.lastUsed < IDLE_MS) return
      slots[index] = null
      lane.client.end().catch(() => undefined)
    })
  }, IDLE_MS / 3)
  sweep.unref()

  // The first connection with room takes the read; the next ones only take the overflow (see
  // SPILL_AT).
  const laneFor = (): number => {
    let least = 0
    for (let index = 0; index < lanes; index++) {
      const lane = slots[index] ?? null
      if (lane === null || lane.pending < SPILL_AT) return index
      if (lane.pending < slots[least]!.pending) least = index
    }
    return least
  }

  const read = async <Row>(
    name: string,
    text: string,
    values: ReadonlyArray<string | number | null>,
  ): Promise<Row[]> => {
    if (closed) throw new Error('driver has already been destroyed')
    const index = laneFor()
    const lane = slots[index] ?? open(index)
    lane.pending++
    lane.lastUsed = Date.now()
    try {
      const client = await lane.ready
      corkForThisTurn(socketOf(client))
      return await new Promise<Row[]>((resolve, reject) => {
        client.query(
          new HotRead(name, text, values as unknown[], (error, rows) =>
            error === null ? resolve(rows as Row[]) : reject(error),
          ),
        )
      })
    } finally {
      lane.pending--
    }
  }

  return {
    read,
    async close() {
      closed = true
      clearInterval(sweep)
      const open = slots.filter((lane): lane is Lane => lane !== null)
      slots.fill(null)
      await Promise.all(
        open.map((lane) => lane.ready.then((client) => client.end()).catch(() => undefined)),
      )
    },
  }
}
