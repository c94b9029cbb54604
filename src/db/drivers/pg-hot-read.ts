/**
 * One hot read (db/precompiled.ts) as a pg query that reads its rows the way every execution of a
 * named statement allows: PostgreSQL describes the same columns each time, so their names and type
 * parsers are looked up once per statement and kept, instead of pg's per-execution work — a
 * dictionary object and a spread of it for every RowDescription (Result.addFields), and a
 * property-by-property copy of the query's config (cloneQueryConfig)
 * (docs/decisions/0010-hot-read-row-class.md).
 *
 * It is a pg Query (pipeline mode accepts nothing else) whose row handlers are its own: the
 * extended-protocol messages (Parse once, Bind, Describe, Execute, Sync), the read timeout and the
 * error paths stay pg's, and the two methods overridden are the ones pg calls on whatever query it
 * runs (pg-cursor's custom queries implement the same), handleRowDescription and handleDataRow.
 * The kept columns are checked against each description (count, names, types): a statement that
 * came to describe other columns gets new ones, it is never read with stale parsers.
 *
 * Private dependencies (pg 8.23.1, pinned exactly in package.json; each checked by name in
 * test/internals.canary.test.ts and test/internals.canary.postgres.test.ts):
 * - `Query.prototype.handleRowDescription(message)` and `handleDataRow(message)`: undocumented
 *   methods pg's Client calls on the query it runs, with pg-protocol's messages
 *   (`fields[].name`, `fields[].dataTypeID`, `fields[].format`; a DataRow's `fields` as text or
 *   null). If pg renamed them or changed the messages, pg's own handlers would run instead and
 *   the reads would answer no rows: every authenticated request would fail.
 * - `new Query(text)` followed by assigning `name`, `values` and `callback`: `submit()` reads
 *   those fields, and calls `callback` once after ReadyForQuery or on an error (also its read
 *   timeout's). A `rows` field is a portal's row limit, which pipeline mode refuses.
 * Switch back: POSTGRES_HOT_READS=pool reads through pg's pool and its own row handling.
 */
import type pg from 'pg'
import type * as PgModule from 'pg'

type Parser = (text: string) => unknown
type Row = Record<string, unknown>

/** The columns of a statement's rows as last described: their names, type OIDs and parsers. */
interface Columns {
  names: string[]
  types: number[]
  parsers: Parser[]
}

/** What pg hands the row handlers (pg-protocol's messages). */
interface RowDescription {
  fields: Array<{ name: string; dataTypeID: number; format?: string }>
}
interface DataRow {
  fields: Array<string | null>
}

export type HotReadDone = (error: Error | null, rows: Row[]) => void

/**
 * The pg Query subclass for one client configuration (its type parsers), with its statements'
 * columns.
 */
export function hotReadClass(
  pgModule: typeof PgModule.default,
  getTypeParser: (oid: number, format?: 'text' | 'binary') => Parser,
) {
  const described = new Map<string, Columns>()

  const columnsFor = (name: string, message: RowDescription): Columns => {
    const fields = message.fields
    const kept = described.get(name)
    if (
      kept !== undefined &&
      kept.names.length === fields.length &&
      fields.every((field, i) => field.name === kept.names[i] && field.dataTypeID === kept.types[i])
    ) {
      return kept
    }
    const columns: Columns = {
      names: fields.map((field) => field.name),
      types: fields.map((field) => field.dataTypeID),
      parsers: fields.map((field) =>
        getTypeParser(field.dataTypeID, field.format === 'binary' ? 'binary' : 'text'),
      ),
    }
    described.set(name, columns)
    return columns
  }

  // pg's typings describe Query's public face only; the fields below are the ones its submit()
  // reads.
  const Base = pgModule.Query as unknown as new (text: string) => pg.Submittable & {
    name?: string
    values?: unknown[]
    callback?: (error: Error | null) => void
  }

  return class HotRead extends Base {
    // Not `rows`: pg's Query reads that name as a portal's row limit.
    private readonly found: Row[] = []
    private columns: Columns | null = null
    private failure: Error | null = null

    constructor(name: string, text: string, values: unknown[], done: HotReadDone) {
      // The text alone, not a config object: pg would copy an object property by property.
      super(text)
      this.name = name
      this.values = values
      // pg calls this once, after ReadyForQuery or on an error (also its read timeout's).
      this.callback = (error) => done(error ?? this.failure, this.found)
    }

    handleRowDescription(message: RowDescription): void {
      this.columns = columnsFor(this.name!, message)
    }

    handleDataRow(message: DataRow): void {
      const columns = this.columns
      if (columns === null || this.failure !== null) return
      const row: Row = {}
      try {
        for (let i = 0; i < columns.names.length; i++) {
          const text = message.fields[i]
          row[columns.names[i]!] =
            text === null || text === undefined ? null : columns.parsers[i]!(text)
        }
      } catch (error) {
        // A value its parser refuses fails the read (as pg's own rows do), once the server is done
        // with it.
        this.failure = error as Error
        return
      }
      this.found.push(row)
    }
  }
}
