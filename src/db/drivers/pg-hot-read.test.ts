/**
 * db/drivers/pg-hot-read.ts without a server: the messages pg hands a query (RowDescription,
 * DataRow, ReadyForQuery's callback) fed by hand, for what the PostgreSQL suite cannot arrange on
 * demand — a statement name described with other columns than last time. Rows against a real
 * server, read alongside pg's own: db/drivers/pg-pipelined-reader.postgres.test.ts.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { hotReadClass } from './pg-hot-read.js'

const INT4 = 23
const TEXT = 25
const parsers = new Map<number, (text: string) => unknown>([
  [INT4, (text) => Number(text)],
  [TEXT, (text) => text],
])
const describedFor = (columns: Array<[string, number]>) => ({
  fields: columns.map(([name, dataTypeID]) => ({ name, dataTypeID, format: 'text' })),
})

/** A read of `name` described with `columns`, fed `rows`, then finished as pg finishes it. */
function readWith(
  HotRead: ReturnType<typeof hotReadClass>,
  name: string,
  columns: Array<[string, number]>,
  rows: Array<Array<string | null>>,
) {
  let answer: { error: Error | null; rows: unknown[] } | null = null
  const query = new HotRead(
    name,
    'select …',
    [],
    (error, found) => (answer = { error, rows: found }),
  )
  query.handleRowDescription(describedFor(columns))
  for (const fields of rows) query.handleDataRow({ fields })
  ;(query as unknown as { handleReadyForQuery(connection: unknown): void }).handleReadyForQuery(
    null,
  )
  return answer!
}

const N_LABEL: Array<[string, number]> = [
  ['n', INT4],
  ['label', TEXT],
]

describe('hot read', () => {
  it('is a pg Query (pipeline mode takes nothing else) carrying its name and values, not a row limit', () => {
    const HotRead = hotReadClass(pg, (oid) => parsers.get(oid)!)
    const query = new HotRead(
      'sb_x',
      'select $1::int as n',
      [1],
      () => undefined,
    ) as unknown as pg.Query & Record<string, unknown>
    expect(query).toBeInstanceOf(pg.Query)
    expect(query).toMatchObject({ name: 'sb_x', text: 'select $1::int as n', values: [1] })
    expect(query.rows).toBeUndefined()
  })

  it('parses each row with the columns described, and reads a name described with other columns with the new ones', () => {
    const asked: number[] = []
    const HotRead = hotReadClass(pg, (oid) => (asked.push(oid), parsers.get(oid)!))
    const rowsOf = (
      name: string,
      columns: Array<[string, number]>,
      rows: Array<Array<string | null>>,
    ) => readWith(HotRead, name, columns, rows).rows
    expect(
      readWith(HotRead, 'sb_shape', N_LABEL, [
        ['1', 'a'],
        ['2', null],
      ]),
    ).toEqual({
      error: null,
      rows: [
        { n: 1, label: 'a' },
        { n: 2, label: null },
      ],
    })
    // The same description again: its parsers are not looked up again.
    expect(rowsOf('sb_shape', N_LABEL, [['3', 'b']])).toEqual([{ n: 3, label: 'b' }])
    expect(asked).toEqual([INT4, TEXT])
    // Other names, other types, another count: each is read as now described.
    expect(
      rowsOf(
        'sb_shape',
        [
          ['m', INT4],
          ['label', TEXT],
        ],
        [['4', 'c']],
      ),
    ).toEqual([{ m: 4, label: 'c' }])
    expect(
      rowsOf(
        'sb_shape',
        [
          ['m', TEXT],
          ['label', TEXT],
        ],
        [['4', 'c']],
      ),
    ).toEqual([{ m: '4', label: 'c' }])
    expect(rowsOf('sb_shape', [['m', TEXT]], [['5']])).toEqual([{ m: '5' }])
    expect(rowsOf('sb_other', [['n', TEXT]], [['6']])).toEqual([{ n: '6' }])
  })

  it('fails the read whose value a parser refuses, once the server is done with it', () => {
    const HotRead = hotReadClass(pg, () => (text) => {
      if (text === 'bad') throw new RangeError('Invalid time value')
      return text
    })
    const answer = readWith(HotRead, 'sb_fail', [['at', TEXT]], [['ok'], ['bad'], ['ok']])
    expect(answer.error).toBeInstanceOf(RangeError)
  })
})
