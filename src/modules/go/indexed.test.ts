/**
 * Issue 31, at scale: the go redirect (by session and by sb_ token), its details page and the miss
 * page find a person's links by index probes (links/visibility.ts forwardingWithSlugKey), not by
 * reading every link that has the slug. With 3,000 other people each owning a go/wiki, each
 * statement these pages send to the database — caught where it leaves the process — is explained
 * on its engine: on PostgreSQL it touches at most a few index pages (6–10 buffers; before, 48–59 and 3,000 rows dropped),
 * and on SQLite it reaches links and memberships only through an index (it scanned links before).
 */
import { DatabaseSync } from 'node:sqlite'
import { CompiledQuery } from 'kysely'
import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bareUserRow, bearer, createApiTokenFor, createSignedInUser, type SignedIn, type TestUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const OTHERS = 3000
const CHUNK = 500

// Saved to be put back; never called unbound (see caught).
// eslint-disable-next-line @typescript-eslint/unbound-method
const pgQuery = pg.Client.prototype.query
// eslint-disable-next-line @typescript-eslint/unbound-method
const sqlitePrepare = DatabaseSync.prototype.prepare
afterEach(() => {
  pg.Client.prototype.query = pgQuery
  DatabaseSync.prototype.prepare = sqlitePrepare
})

interface Statement {
  text: string
  values: unknown[]
}

/**
 * The statements that read links while `action` runs, as the driver gets them. On SQLite a statement
 * is caught when it is prepared (the driver keeps it prepared afterwards), so each page's statement
 * is caught on its first request in this file.
 */
async function caught(action: () => Promise<unknown>): Promise<Statement[]> {
  const seen: Statement[] = []
  const reads = (text: string) => /"links"/.test(text)
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; values?: unknown[] }
    const text = typeof config === 'string' ? config : config.text
    if (text !== undefined && reads(text))
      seen.push({ text, values: typeof config === 'string' ? ((args[1] as unknown[]) ?? []) : (config.values ?? []) })
    return (pgQuery as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof pgQuery
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, text: string) {
    if (reads(text)) seen.push({ text, values: [] })
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

/** PostgreSQL: the buffers the statement touched when run with its own values, and the rows its filters threw away. */
async function costOf(statement: Statement): Promise<{ buffers: number; rowsFiltered: number }> {
  const result = await t.deps.db.executeQuery<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
    CompiledQuery.raw(`explain (analyze, buffers, format json) ${statement.text}`, statement.values),
  )
  const [{ Plan: plan }] = result.rows[0]!['QUERY PLAN']
  const filtered = [...JSON.stringify(plan).matchAll(/"Rows Removed by Filter":(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0)
  return { buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0), rowsFiltered: filtered }
}

/** SQLite: the plan's steps (SEARCH … USING INDEX, SCAN …). */
async function sqlitePlanOf(statement: Statement): Promise<string[]> {
  const slots = (statement.text.match(/\?/g) ?? []).length
  const result = await t.deps.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(
      `explain query plan ${statement.text}`,
      Array.from({ length: slots }, () => null),
    ),
  )
  return result.rows.map((row) => row.detail)
}

async function expectIndexed(statements: Statement[]): Promise<void> {
  expect(statements.length).toBeGreaterThan(0)
  for (const statement of statements) {
    if (t.database.engine === 'postgres') {
      // Measured: 6–10 buffers and nothing filtered; before, 48–59 buffers and 3,000 rows read and dropped.
      const cost = await costOf(statement)
      expect(cost.buffers, statement.text).toBeLessThan(20)
      expect(cost.rowsFiltered, statement.text).toBeLessThan(10)
    } else {
      const plan = await sqlitePlanOf(statement)
      expect(
        plan.filter((step) => /^SCAN (links|organization_members)\b/.test(step)),
        `${statement.text}\n${plan.join('\n')}`,
      ).toEqual([])
      expect(plan.some((step) => /^SEARCH links USING (COVERING )?INDEX/.test(step))).toBe(true)
    }
  }
}

let user: TestUser & SignedIn
let token: string

beforeAll(async () => {
  user = await createSignedInUser(t)
  token = (await createApiTokenFor(t, user.token, 'indexed', { permissions: ['links:read'] })).token
  await createLink(t, user.token, { slug: 'wiki', url: 'https://mine.example/wiki' })
  // An organization the user is in, with a go-link of its own (the membership branch).
  const owner = await createSignedInUser(t)
  const org = await createOrganization(t, owner.token)
  await addOrgMember(t, owner.token, org.id, user, 'member')
  await createLink(t, owner.token, { slug: 'team', url: 'https://team.example/', organization_id: org.id })
  // Everyone else's go/wiki: what visibleTo as a filter had to read on every redirect.
  const now = new Date().toISOString()
  for (let start = 0; start < OTHERS; start += CHUNK) {
    const ids = Array.from({ length: CHUNK }, (_, i) => `indexed-${start + i}`)
    await t.deps.db
      .insertInto('users')
      .values(ids.map((id) => bareUserRow(id, now)))
      .execute()
    await t.deps.db
      .insertInto('links')
      .values(
        ids.map((id) => ({
          id: `${id}-wiki`,
          user_id: id,
          url: 'https://elsewhere.example/',
          slug: 'wiki',
          slug_key: 'wiki',
          forwarding_enabled: true,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute()
  }
  if (t.database.engine === 'postgres') await t.deps.db.executeQuery(CompiledQuery.raw('analyze'))
}, 120_000)

describe('go-link reads with 3,000 other go/wiki links', () => {
  it('the redirect by session finds the link by index, and still opens it', async () => {
    const statements = await caught(async () => {
      const response = await t.app.inject({ method: 'GET', url: '/go/wiki/page', headers: bearer(user.token) })
      expect(response.headers.location).toBe('https://mine.example/wiki/page')
    })
    await expectIndexed(statements)
    const team = await t.app.inject({ method: 'GET', url: '/go/team', headers: bearer(user.token) })
    expect(team.headers.location).toBe('https://team.example/')
  })

  it('the redirect by sb_ token finds the link by index', async () => {
    const statements = await caught(async () => {
      const response = await t.app.inject({ method: 'GET', url: '/go/team', headers: bearer(token) })
      expect(response.headers.location).toBe('https://team.example/')
    })
    await expectIndexed(statements)
  })

  it('the details page and the miss page read by index', async () => {
    const details = await caught(async () => {
      const response = await t.app.inject({ method: 'GET', url: '/go/wiki+', headers: bearer(user.token) })
      expect(response.statusCode).toBe(200)
      expect(response.body).toContain('https://mine.example/wiki')
      expect(response.body).not.toContain('elsewhere.example')
    })
    await expectIndexed(details)
    const miss = await caught(async () => {
      const response = await t.app.inject({ method: 'GET', url: '/go/wikk', headers: bearer(user.token) })
      expect(response.statusCode).toBe(404)
      // The closest slugs are the user's own and their organization's, never a stranger's.
      expect(response.body).toContain('go/wiki')
    })
    await expectIndexed(miss)
  })
})
