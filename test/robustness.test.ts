/**
 * Robustness: for every operation of the OpenAPI document the app serves, fast-check
 * generates hostile requests — missing, extra and mistyped fields, nulls, empty and 100 kB strings,
 * deep nesting, invalid UTF-8, Unicode edge cases, malformed ids, huge numbers, malformed JSON,
 * wrong content types, bad and expired credentials — with a fixed seed and a bounded count.
 *
 * Every answer must be below 500 (except 503 NOT_CONFIGURED / 502 UPSTREAM_FAILED from features
 * deliberately left unconfigured), every error must carry the envelope with a catalogue reason, and
 * a rejected request must leave the database as it was (row counts; the audit trail excepted, since
 * refusals such as failed sign-ins are recorded on purpose).
 */
import fc from 'fast-check'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { REASONS } from '../src/errors.js'
import { useTestApp } from './helpers/app.js'
import { createApiTokenFor, createSignedInUser, type SignedIn } from './helpers/factories.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const CASES_PER_OPERATION = 24
const SEED = 20261121
const ALLOWED_5XX = new Set(['NOT_CONFIGURED', 'UPSTREAM_FAILED'])
const HUGE = 'x'.repeat(100 * 1024)

interface Schema {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  enum?: unknown[]
  format?: string
  anyOf?: Schema[]
  $ref?: string
}

interface Operation {
  method: string
  path: string
  pathParams: string[]
  queryParams: string[]
  body: Schema | null
}

// Operations of the generated document, of every shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const parameters: Array<{ in: string; name: string }> = op.parameters ?? []
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      })
    }
  }
  return operations
}

// ---- hostile values -------------------------------------------------------------------------

const unicodeEdges = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'tab\tand\nnewline',
  '\ud800',
  '\udfff lone',
  '\u202eRTL override',
  'zero\u200bwidth',
  '😀'.repeat(50),
  'Ǆ ﬁ Å',
  '../../etc/passwd',
  '%00%2e%2e',
  '<script>alert(1)</script>',
  "' or 1=1 --",
  'a'.repeat(300),
)

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 1.5, -0),
  fc.string({ maxLength: 40 }),
  unicodeEdges,
  fc.constant(HUGE),
  fc.constant([]),
  fc.constant({}),
)

function deepNest(depth: number): unknown {
  let value: unknown = 'bottom'
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { v: value }
  return value
}

/** A value that is sometimes right for the schema (to get past validation) and often not. */
function valueFor(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const plausible: fc.Arbitrary<unknown>[] = []
  if (schema?.enum) plausible.push(fc.constantFrom(...schema.enum))
  const type = Array.isArray(schema?.type) ? schema?.type[0] : schema?.type
  if (type === 'string') {
    if (schema?.format === 'email') plausible.push(fc.emailAddress())
    else plausible.push(fc.string({ minLength: 1, maxLength: 30 }))
  }
  if (type === 'integer' || type === 'number') plausible.push(fc.integer({ min: -5, max: 5000 }))
  if (type === 'boolean') plausible.push(fc.boolean())
  if (type === 'array') plausible.push(fc.array(valueFor(schema?.items), { maxLength: 3 }))
  return fc.oneof(...plausible, hostileScalar, fc.constant(deepNest(300)))
}

function bodyFor(schema: Schema | null): fc.Arbitrary<unknown> {
  const properties = schema?.properties ?? {}
  const fields = Object.keys(properties)
  const object = fc
    .tuple(
      fc.subarray(fields),
      fc.boolean(),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), hostileScalar, { maxKeys: 2 }),
      ...fields.map((field) => valueFor(properties[field])),
    )
    .map(([present, withExtra, extra, ...values]) => {
      const out: Record<string, unknown> = {}
      fields.forEach((field, i) => {
        if (present.includes(field)) out[field] = values[i]
      })
      return withExtra ? { ...out, ...extra } : out
    })
  return fc.oneof(
    { weight: 6, arbitrary: object },
    { weight: 1, arbitrary: hostileScalar },
    { weight: 1, arbitrary: fc.constant(deepNest(1000)) },
  )
}

type Payload =
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; contentType: string; bytes: Buffer | string }
  | { kind: 'none' }

const rawPayload: fc.Arbitrary<Payload> = fc.oneof(
  fc.constant<Payload>({
    kind: 'raw',
    contentType: 'application/json',
    bytes: '{"unterminated": ',
  }),
  fc.constant<Payload>({
    kind: 'raw',
    contentType: 'application/json',
    bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  }),
  fc.constant<Payload>({
    kind: 'raw',
    contentType: 'application/json',
    bytes: '{"__proto__": {"is_admin": true}}',
  }),
  fc.constant<Payload>({ kind: 'raw', contentType: 'application/json', bytes: `{"a": "${HUGE}"}` }),
  fc.constant<Payload>({ kind: 'raw', contentType: 'text/plain', bytes: 'name=x' }),
  fc.constant<Payload>({
    kind: 'raw',
    contentType: 'application/x-www-form-urlencoded',
    bytes: 'name=x',
  }),
  fc.constant<Payload>({
    kind: 'raw',
    contentType: 'application/json; charset=utf-16',
    bytes: '{}',
  }),
  fc.constant<Payload>({ kind: 'none' }),
)

function payloadFor(operation: Operation): fc.Arbitrary<Payload> {
  const json = bodyFor(operation.body).map((value): Payload => ({ kind: 'json', value }))
  return fc.oneof({ weight: 5, arbitrary: json }, { weight: 2, arbitrary: rawPayload })
}

const pathValue = fc.oneof(
  fc.uuid(),
  fc
    .string({ minLength: 1, maxLength: 20 })
    .filter((s) => !s.includes('/') && !s.includes('?') && !s.includes('#')),
  fc.constantFrom(
    '0',
    '-1',
    '1e308',
    'null',
    '%zz',
    '%2F',
    'a'.repeat(250),
    'a'.repeat(400),
    '..',
    'ü',
    '😀',
  ),
)

type CredentialKind =
  | 'admin'
  | 'member'
  | 'api-token'
  | 'none'
  | 'garbage'
  | 'expired'
  | 'bad-checksum'
  | 'cookie-without-csrf'
const credential = fc.constantFrom<CredentialKind>(
  'admin',
  'admin',
  'admin',
  'member',
  'api-token',
  'none',
  'garbage',
  'expired',
  'bad-checksum',
  'cookie-without-csrf',
)

// ---- the run --------------------------------------------------------------------------------

interface Tally {
  operations: number
  cases: number
  failures: string[]
  /** How many answers of each status the run produced: proof the cases reach past validation. */
  statuses: Record<string, number>
}
const tally: Tally = { operations: 0, cases: 0, failures: [], statuses: {} }

let admin: SignedIn & { user: { id: string } }
let member: SignedIn
let apiToken: string
let expiredJwt: string

async function ensureCredentials(): Promise<void> {
  const probe = admin
    ? await t.app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: { authorization: `Bearer ${admin.token}` },
      })
    : null
  if (probe?.statusCode === 200) return
  admin = await createSignedInUser(t, { isAdmin: true })
  member = await createSignedInUser(t)
  apiToken = (await createApiTokenFor(t, member.token)).token
}

function headersFor(kind: CredentialKind): {
  headers: Record<string, string>
  cookies?: Record<string, string>
} {
  switch (kind) {
    case 'admin':
      return { headers: { authorization: `Bearer ${admin.token}` } }
    case 'member':
      return { headers: { authorization: `Bearer ${member.token}` } }
    case 'api-token':
      return { headers: { authorization: `Bearer ${apiToken}` } }
    case 'none':
      return { headers: {} }
    case 'garbage':
      return { headers: { authorization: 'Bearer \u0001garbage' } }
    case 'expired':
      return { headers: { authorization: `Bearer ${expiredJwt}` } }
    case 'bad-checksum':
      return { headers: { authorization: `Bearer sb_${'A'.repeat(38)}` } }
    case 'cookie-without-csrf':
      return { headers: {}, cookies: { token: admin.token } }
  }
}

const COUNTED_TABLES_SQL = sql<{
  name: string
}>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`

async function tableNames(): Promise<string[]> {
  const rows =
    t.deps.database.engine === 'postgres'
      ? (await COUNTED_TABLES_SQL.execute(t.deps.db)).rows
      : (
          await sql<{
            name: string
          }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(
            t.deps.db,
          )
        ).rows
  // The audit log (a refused sign-in is recorded) and its Merkle tree and checkpoints, which follow
  // it and are signed in the background, change without the request changing anything.
  return rows
    .map((r) => r.name)
    .filter((name) => !name.startsWith('audit_') && !name.startsWith('kysely_'))
}

/**
 * Every table's row count in one statement (one snapshot, one round trip): a query per table, twice
 * per case, made this file the suite's longest on PostgreSQL.
 */
async function rowCounts(tables: string[]): Promise<Record<string, number>> {
  const counts = sql.join(
    tables.map((table, i) => sql`(select count(*) from ${sql.table(table)}) as ${sql.id(`n${i}`)}`),
  )
  const row = (await sql<Record<string, unknown>>`select ${counts}`.execute(t.deps.db)).rows[0]!
  return Object.fromEntries(tables.map((table, i) => [table, Number(row[`n${i}`])]))
}

function check(
  operation: Operation,
  request: InjectOptions & { url: string },
  response: LightMyRequestResponse,
): string | null {
  const where = `${request.method} ${request.url} → ${response.statusCode}`
  // A response body of any operation; the check asserts the envelope.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let body: any
  if (response.statusCode >= 400) {
    try {
      body = response.json()
    } catch {
      return `${where}: error without a JSON envelope: ${response.body.slice(0, 120)}`
    }
    if (!(body.reason in REASONS))
      return `${where}: reason ${String(body.reason)} is not in the catalogue`
    if (
      body.code !== response.statusCode ||
      typeof body.error !== 'string' ||
      typeof body.message !== 'string'
    ) {
      return `${where}: malformed envelope ${JSON.stringify(body).slice(0, 200)}`
    }
    if (response.statusCode >= 500 && !ALLOWED_5XX.has(body.reason))
      return `${where}: ${body.reason} ${body.message}`
  }
  void operation
  return null
}

describe('robustness: hostile requests for every operation of the OpenAPI document', () => {
  afterAll(() => {
    console.log(
      `robustness: ${tally.operations} operations, ${tally.cases} cases, ${tally.failures.length} failures; statuses ${JSON.stringify(tally.statuses)}`,
    )
  })

  it('never answers 5xx, always with the envelope, and rejected requests change nothing', async () => {
    await ensureCredentials()
    expiredJwt = await t.deps.accessTokens.issue(
      { sub: admin.user.id, sid: 'expired' },
      new Date(Date.now() - 7200_000),
      new Date(Date.now() - 3600_000),
    )
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
    const operations = operationsOf(doc)
    expect(operations.length).toBeGreaterThan(20)
    const tables = await tableNames()

    for (const operation of operations) {
      tally.operations += 1
      const arbitrary = fc.record({
        credential,
        params: fc.tuple(...operation.pathParams.map(() => pathValue)),
        query: fc.dictionary(
          fc.constantFrom(...operation.queryParams, 'extra', 'limit', 'cursor'),
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.constantFrom('-1', '999999', '1e309', 'abc', ''),
          ),
          { maxKeys: 3 },
        ),
        payload: payloadFor(operation),
      })
      await fc
        .assert(
          fc.asyncProperty(arbitrary, async (input) => {
            await ensureCredentials()
            tally.cases += 1
            let url = operation.path
            operation.pathParams.forEach(
              (name, i) =>
                (url = url.replace(`{${name}}`, encodeURIComponent(String(input.params[i])))),
            )
            const query = new URLSearchParams(input.query).toString()
            const { headers, cookies } = headersFor(input.credential)
            const request: InjectOptions & { url: string } = {
              method: operation.method,
              url: query ? `${url}?${query}` : url,
              headers: { ...headers },
              ...(cookies && { cookies }),
            }
            if (input.payload.kind === 'json' && input.payload.value !== undefined) {
              request.headers!['content-type'] = 'application/json'
              request.payload = JSON.stringify(input.payload.value)
            } else if (input.payload.kind === 'raw') {
              request.headers!['content-type'] = input.payload.contentType
              request.payload = input.payload.bytes
            }
            const before = await rowCounts(tables)
            const response = await t.app.inject(request)
            tally.statuses[response.statusCode] = (tally.statuses[response.statusCode] ?? 0) + 1
            const failure = check(operation, request, response)
            if (failure === null && response.statusCode >= 400) {
              const after = await rowCounts(tables)
              const changed = tables.filter((table) => before[table] !== after[table])
              if (changed.length > 0)
                tally.failures.push(
                  `${request.method} ${request.url} → ${response.statusCode} changed ${changed.join(', ')}`,
                )
            }
            if (failure !== null) tally.failures.push(failure)
            return failure === null
          }),
          { seed: SEED, numRuns: CASES_PER_OPERATION, endOnFailure: true },
        )
        .catch(() => undefined) // failures are collected in the tally and reported together below
    }
    expect(tally.failures).toEqual([])
    expect(tally.cases).toBeGreaterThanOrEqual(operations.length * 20)
    // The mix must exercise authentication, validation, parsing, lookups and real successes.
    for (const status of ['200', '400', '401', '404', '413', '415'])
      expect(tally.statuses[status] ?? 0, status).toBeGreaterThan(0)
  }, 600_000)
})
