/**
 * Canaries for pg's internals that src/db/drivers/ relies on, against a real server, each test
 * named after the internal it checks (the engine-free ones: internals.canary.test.ts).
 */
import net from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testPostgresUrl } from './helpers/database.js'
import { socketOf } from '../src/db/drivers/pg-pipelined-reader.js'

interface Described {
  fields: Array<{ name: unknown; dataTypeID: unknown; format: unknown }>
}

/** What db/drivers/pg-hot-read.ts does with pg's Query: the text alone, then its own fields. */
class RecordingQuery extends (pg.Query as unknown as new (text: string) => pg.Submittable) {
  readonly descriptions: Described[] = []
  readonly dataRows: Array<{ fields: unknown[] }> = []
  readonly done: Promise<Error | null>
  declare name: string
  declare values: unknown[]
  declare callback: (error: Error | null) => void

  constructor(name: string, text: string, values: unknown[]) {
    super(text)
    this.name = name
    this.values = values
    this.done = new Promise((resolve) => {
      this.callback = (error) => resolve(error)
    })
  }

  handleRowDescription(message: Described): void {
    this.descriptions.push(message)
  }

  handleDataRow(message: { fields: unknown[] }): void {
    this.dataRows.push(message)
  }
}

const STATEMENT = 'select $1::int as n, null::text as nothing, $2::text as label'
let client: pg.Client

beforeAll(async () => {
  client = new pg.Client({ connectionString: testPostgresUrl(), pipeline: true })
  await client.connect()
})
afterAll(async () => {
  await client.end()
})

describe('pg in pipeline mode (db/drivers/)', () => {
  it('pg calls handleRowDescription(message) on every execution of a named statement, with fields[].name, dataTypeID and format', async () => {
    const first = new RecordingQuery('canary_rows', STATEMENT, [1, 'a'])
    const second = new RecordingQuery('canary_rows', STATEMENT, [2, 'b'])
    void client.query(first)
    void client.query(second)
    expect(await first.done).toBeNull()
    expect(await second.done).toBeNull()
    for (const query of [first, second]) {
      expect(query.descriptions).toHaveLength(1)
      expect(query.descriptions[0]!.fields).toEqual(
        [
          { name: 'n', dataTypeID: 23, format: 'text' },
          { name: 'nothing', dataTypeID: 25, format: 'text' },
          { name: 'label', dataTypeID: 25, format: 'text' },
        ].map((field) => expect.objectContaining(field)),
      )
    }
  })

  it('pg calls handleDataRow(message) once per row, with each column as text or null in fields', async () => {
    const query = new RecordingQuery('canary_data', STATEMENT, [7, 'naïve ✓'])
    void client.query(query)
    expect(await query.done).toBeNull()
    expect(query.dataRows.map((row) => row.fields)).toEqual([['7', null, 'naïve ✓']])
  })

  it("pg calls a query's callback field once, after its rows (ReadyForQuery), with null", async () => {
    const query = new RecordingQuery('canary_done', STATEMENT, [1, 'x'])
    let rowsWhenDone = -1
    const done = new Promise<void>((resolve) => {
      query.callback = () => {
        rowsWhenDone = query.dataRows.length
        resolve()
      }
    })
    void client.query(query)
    await done
    expect(rowsWhenDone).toBe(1)
  })

  it('pg pipeline mode refuses a query with a row limit (`rows`), the field name pg-hot-read.ts avoids', async () => {
    const query = new RecordingQuery('canary_limit', STATEMENT, [1, 'x'])
    ;(query as unknown as { rows: number }).rows = 1
    void client.query(query)
    expect((await query.done)?.message).toMatch(/not supported in pipeline mode/)
  })

  it("pg client.connection.stream is the client's socket: a query written while it is corked waits in it", async () => {
    const stream = socketOf(client)
    expect(stream).toBeInstanceOf(net.Socket)
    expect(stream.writableCorked).toBe(0)
    stream.cork()
    const before = (stream as net.Socket).writableLength
    const query = new RecordingQuery('canary_cork', STATEMENT, [3, 'c'])
    void client.query(query)
    expect((stream as net.Socket).writableLength).toBeGreaterThan(before)
    stream.uncork()
    expect(await query.done).toBeNull()
    expect(query.dataRows.map((row) => row.fields)).toEqual([['3', null, 'c']])
  })
})
