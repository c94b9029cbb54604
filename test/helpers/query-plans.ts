/**
 * What a request asks the database, and how the engine answers it: the statements caught where
 * they leave the process (pg's Client.query; node:sqlite's prepare, which the driver does once per
 * statement text), explained on their engine. For tests that hold a read to its indexes at scale.
 */
import { DatabaseSync, StatementSync } from 'node:sqlite'
import { CompiledQuery, sql, type RawBuilder } from 'kysely'
import pg from 'pg'
import { expect } from 'vitest'
import type { TestContext } from './app.js'
import { bareUserRow } from './factories.js'

export interface Statement {
  text: string
  values: unknown[]
}

// Saved to be put back; never called unbound.
// eslint-disable-next-line @typescript-eslint/unbound-method
const pgQuery = pg.Client.prototype.query
// eslint-disable-next-line @typescript-eslint/unbound-method
const sqlitePrepare = DatabaseSync.prototype.prepare

/**
 * The statements whose text matches `reads` while `action` runs. On SQLite a statement is caught
 * when the driver prepares it, which it does once per text: catch a page's statement on its first
 * request in the test file.
 */
export async function statementsOf(
  reads: RegExp,
  action: () => Promise<unknown>,
): Promise<Statement[]> {
  const seen: Statement[] = []
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; values?: unknown[] }
    const text = typeof config === 'string' ? config : config.text
    if (text !== undefined && reads.test(text))
      seen.push({
        text,
        values: typeof config === 'string' ? ((args[1] as unknown[]) ?? []) : (config.values ?? []),
      })
    return (pgQuery as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof pgQuery
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, text: string) {
    if (reads.test(text)) seen.push({ text, values: [] })
    return sqlitePrepare.call(this, text)
  }
  try {
    await action()
  } finally {
    pg.Client.prototype.query = pgQuery
    DatabaseSync.prototype.prepare = sqlitePrepare
  }
  return seen
}

// eslint-disable-next-line @typescript-eslint/unbound-method
const sqliteAll = StatementSync.prototype.all

/**
 * SQLite: the text of every statement read (`all`) while `action` runs, each time it runs — also
 * a statement the driver prepared before, which statementsOf does not see.
 */
export async function sqliteReadsDuring(action: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  StatementSync.prototype.all = function (this: StatementSync, ...args: unknown[]) {
    seen.push(this.sourceSQL)
    return (sqliteAll as (...a: unknown[]) => ReturnType<typeof sqliteAll>).apply(this, args)
  }
  try {
    await action()
  } finally {
    StatementSync.prototype.all = sqliteAll
  }
  return seen
}

/**
 * PostgreSQL: the buffers the statement touched when run with its own values, and the rows its
 * filters threw away.
 */
export async function postgresCostOf(
  t: TestContext,
  statement: Statement,
): Promise<{ buffers: number; rowsFiltered: number }> {
  const result = await t.deps.db.executeQuery<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
    CompiledQuery.raw(
      `explain (analyze, buffers, format json) ${statement.text}`,
      statement.values,
    ),
  )
  const [{ Plan: plan }] = result.rows[0]!['QUERY PLAN']
  const filtered = [...JSON.stringify(plan).matchAll(/"Rows Removed by Filter":(\d+)/g)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  )
  return {
    buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
    rowsFiltered: filtered,
  }
}

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  Filter?: string
  Plans?: PlanNode[]
}

/** The sequential scans of the plan, each with the filter it tests on every row ('' for none). */
function seqScansIn(node: PlanNode): { table: string; filter: string }[] {
  const own =
    node['Node Type'] === 'Seq Scan'
      ? [{ table: node['Relation Name'] ?? '?', filter: node.Filter ?? '' }]
      : []
  return [...own, ...(node.Plans ?? []).flatMap(seqScansIn)]
}

/**
 * PostgreSQL: the plan run with the statement's values (as JSON text), the buffers it touched and
 * the tables it read whole.
 */
export async function postgresPlanOf(t: TestContext, statement: Statement): Promise<PlanSummary> {
  const result = await t.deps.db.executeQuery<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
    CompiledQuery.raw(
      `explain (analyze, buffers, format json) ${statement.text}`,
      statement.values,
    ),
  )
  return planSummary(result.rows[0]!['QUERY PLAN'][0].Plan)
}

interface PlanSummary {
  text: string
  buffers: number
  /** The tables read whole. */
  seqScans: string[]
  /** The same, with the filter each tests on every row it reads. */
  seqScanFilters: { table: string; filter: string }[]
}

function planSummary(plan: Record<string, number>): PlanSummary {
  const scans = seqScansIn(plan as unknown as PlanNode)
  return {
    text: JSON.stringify(plan, null, 1),
    buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
    seqScans: scans.map((scan) => scan.table),
    seqScanFilters: scans,
  }
}

/**
 * PostgreSQL: the same for the plan made for any values — the one a statement prepared on a
 * connection keeps once PostgreSQL finds it costs no more than planning for each call's values
 * (db/precompiled.ts compiledOnce) — run with the statement's values.
 */
export async function postgresGenericPlanOf(
  t: TestContext,
  statement: Statement,
): Promise<PlanSummary> {
  const name = 'plan_test_generic'
  // EXECUTE takes no bound parameters: the values are written as literals.
  const args = statement.values.map(literalOf).join(', ')
  const explained = await t.deps.db.connection().execute(async (connection) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(connection)
    await connection.executeQuery(CompiledQuery.raw(`prepare ${name} as ${statement.text}`))
    try {
      return await connection.executeQuery<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
        CompiledQuery.raw(`explain (analyze, buffers, format json) execute ${name}(${args})`),
      )
    } finally {
      await connection.executeQuery(CompiledQuery.raw(`deallocate ${name}`))
      await sql`reset plan_cache_mode`.execute(connection)
    }
  })
  return planSummary(explained.rows[0]!['QUERY PLAN'][0].Plan)
}

/** A value as a PostgreSQL literal: text quoted, a list as an array of such. */
function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'number') return String(value)
  if (Array.isArray(value)) return `array[${value.map(literalOf).join(', ')}]::text[]`
  if (typeof value !== 'string') throw new Error(`no literal for a ${typeof value}`)
  return `'${value.replaceAll("'", "''")}'`
}

/** SQLite: the plan's steps (SEARCH … USING INDEX, SCAN …). */
export async function sqlitePlanOf(t: TestContext, statement: Statement): Promise<string[]> {
  const slots = (statement.text.match(/\?/g) ?? []).length
  const result = await t.deps.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(
      `explain query plan ${statement.text}`,
      Array.from({ length: slots }, () => null),
    ),
  )
  return result.rows.map((row) => row.detail)
}

/**
 * Every statement reads by index: on PostgreSQL it touches fewer than `maxBuffers` buffers and its
 * filters drop fewer than 10 rows; on SQLite no step scans links or memberships, and links are
 * searched through an index.
 */
export async function expectIndexed(
  t: TestContext,
  statements: Statement[],
  maxBuffers = 20,
): Promise<void> {
  expect(statements.length).toBeGreaterThan(0)
  for (const statement of statements) {
    if (t.database.engine === 'postgres') {
      const cost = await postgresCostOf(t, statement)
      expect(cost.buffers, statement.text).toBeLessThan(maxBuffers)
      expect(cost.rowsFiltered, statement.text).toBeLessThan(10)
    } else {
      const plan = await sqlitePlanOf(t, statement)
      expect(
        plan.filter((step) => /^SCAN (links|organization_members)\b/.test(step)),
        `${statement.text}\n${plan.join('\n')}`,
      ).toEqual([])
      expect(
        plan.some((step) => /^(MULTI-INDEX OR|SEARCH links USING (COVERING )?INDEX)/.test(step)),
      ).toBe(true)
    }
  }
}

/**
 * `count` other people, inserted straight into the database, each owning one link (with `slug`,
 * when given): the crowd a scale test puts beside its own user. PostgreSQL's statistics are
 * refreshed after, as they would be on a database that grew over time.
 */
export async function insertStrangersWithLinks(
  t: TestContext,
  prefix: string,
  count: number,
  slug: string | null = null,
): Promise<void> {
  const now = new Date().toISOString()
  const chunk = 500
  for (let start = 0; start < count; start += chunk) {
    const ids = Array.from(
      { length: Math.min(chunk, count - start) },
      (_, i) => `${prefix}-${start + i}`,
    )
    await t.deps.db
      .insertInto('users')
      .values(ids.map((id) => bareUserRow(id, now)))
      .execute()
    await t.deps.db
      .insertInto('links')
      .values(
        ids.map((id) => ({
          id: `${id}-link`,
          user_id: id,
          url: 'https://elsewhere.example/',
          slug,
          slug_key: slug,
          forwarding_enabled: true,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute()
  }
  await analyzeIfPostgres(t)
}

export interface BulkLinks {
  /** Ids are `<prefix>-<i>`, URLs `https://<prefix>.example/<i>`, i from 1 to count. */
  prefix: string
  count: number
  owner: { userId: string } | { organizationId: string }
  /** Every n-th link is titled `<word> <i>` (the others `Link <i>`): a word in 1 of n titles. */
  word?: { every: number; text: string }
}

/**
 * The rows 1 … `count` for one INSERT … SELECT, numbered `s.i` (PostgreSQL generate_series, SQLite
 * a recursive CTE): what goes before the statement, what it selects from, and an expression over
 * `s.i` as text.
 */
export function numberedRows(t: TestContext, count: number) {
  const postgres = t.database.engine === 'postgres'
  const text = (expression: RawBuilder<unknown>) =>
    postgres ? sql`(${expression})::text` : sql`cast(${expression} as text)`
  return postgres
    ? { head: sql``, from: sql`from generate_series(1, ${count}) as s(i)`, text }
    : {
        head: sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${count})`,
        from: sql`from s`,
        text,
      }
}

/**
 * Links inserted in one INSERT … SELECT over numbered rows (numberedRows), the i-th created i
 * seconds ago: 100,000 rows in a few seconds. Refresh PostgreSQL's statistics afterwards
 * (analyzeIfPostgres).
 */
export async function insertLinksInBulk(t: TestContext, bulk: BulkLinks): Promise<void> {
  const postgres = t.database.engine === 'postgres'
  const i = sql.ref('s.i')
  const rows = numberedRows(t, bulk.count)
  const text = rows.text(i)
  const title =
    bulk.word === undefined
      ? sql`'Link ' || ${text}`
      : sql`case when ${i} % ${sql.lit(bulk.word.every)} = 0 then ${bulk.word.text} || ' ' || ${text}
          else 'Link ' || ${text} end`
  const createdAt = postgres
    ? sql`date_trunc('milliseconds', now()) - make_interval(secs => ${i})`
    : sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ${text} || ' seconds')`
  const owner =
    'userId' in bulk.owner
      ? sql`${bulk.owner.userId}, null, ${bulk.owner.userId}`
      : sql`null, ${bulk.owner.organizationId}, null`
  const select = sql`select ${bulk.prefix} || '-' || ${text}, ${owner},
      'https://' || ${bulk.prefix} || '.example/' || ${text}, ${title}, null, null,
      ${sql.lit(postgres ? true : 1)}, ${createdAt}, ${createdAt}`
  const columns = sql`links (id, user_id, organization_id, created_by, url, title, slug, slug_key,
      forwarding_enabled, created_at, updated_at)`
  await sql`${rows.head} insert into ${columns} ${select} ${rows.from}`.execute(t.deps.db)
}

/**
 * A company's 100,000 links in bulk, as the Links list's plan tests read them: the person's 20,000
 * (`mine-<n>`), their organization's 20,000 (`team-<n>`) and three strangers' 20,000 each (users
 * `stranger-s1` to `stranger-s3`, created here), the word in 1 title of 400.
 */
export async function insertCompanyLinks(
  t: TestContext,
  owners: { userId: string; organizationId: string },
  wordText: string,
): Promise<void> {
  const now = new Date().toISOString()
  const strangers = ['s1', 's2', 's3'].map((id) => bareUserRow(`stranger-${id}`, now))
  await t.deps.db.insertInto('users').values(strangers).execute()
  const word = { every: 400, text: wordText }
  const bulks: BulkLinks[] = [
    { prefix: 'mine', count: 20_000, owner: { userId: owners.userId }, word },
    { prefix: 'team', count: 20_000, owner: { organizationId: owners.organizationId }, word },
    ...strangers.map((stranger) => ({
      prefix: stranger.id,
      count: 20_000,
      owner: { userId: stranger.id },
      word,
    })),
  ]
  for (const bulk of bulks) await insertLinksInBulk(t, bulk)
}

/**
 * PostgreSQL's statistics of the tables a links page reads refreshed, as on a database that grew
 * over time — those of this file's schema only: a bare `analyze` reads every schema on the server.
 */
export async function analyzeIfPostgres(t: TestContext): Promise<void> {
  if (t.database.engine === 'postgres')
    await t.deps.db.executeQuery(
      CompiledQuery.raw(
        'analyze links, users, organizations, organization_members, tags, link_tags',
      ),
    )
}
