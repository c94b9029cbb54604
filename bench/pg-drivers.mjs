#!/usr/bin/env node
/**
 * node bench/pg-drivers.mjs — the PostgreSQL driver path choice
 * (docs/decisions/0008-precompiled-hot-statements.md): the per-request authentication query (a
 * session joined to its user, its MFA state and the two-factor policy, by primary keys) run through
 *
 *   - kysely + pg:   Kysely's PostgresDialect over a pg pool (checkout, unnamed statement: Parse,
 *                    Bind, Describe, Execute, Sync on every call);
 *   - pg unnamed:    pg's pool.query without Kysely in between;
 *   - pg named:      pg's pool.query with `name:` (parsed once per connection, then Bind/Execute);
 *                    also with the credential and user alone (without the MFA state and policy), to
 *                    see what the MFA state and policy columns add;
 *   - pg pipeline:   pg's pipeline mode (pg ≥ 8.23) on one or two long-lived clients, named, the
 *                    writes of one event-loop turn corked into one (the path chosen:
 *                    db/postgres.ts);
 *   - postgres.js:   porsager's `postgres` (prepares and pipelines by default), measured only when
 *                    installed: `npm install --no-save postgres` or POSTGRES_JS=/path/to/postgres.
 *
 * Ten queries in flight at once, like the bench's ten connections; alternating rounds. Prints this
 * process's CPU time per query (user + system; the figure the machine's other load moves least)
 * and queries per second.
 */
import { createRequire } from 'node:module'
import { randomUUID } from 'node:crypto'
import { Kysely, PostgresDialect, CompiledQuery } from 'kysely'
import pg from 'pg'

const require = createRequire(import.meta.url)
const URL_ = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const QUERIES = Number(process.env.QUERIES ?? 20_000)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const IN_FLIGHT = 10
const POOL = 10
const SESSIONS = 1000

const schema = `pgdrivers_${Date.now().toString(36)}`
const admin = new pg.Client({ connectionString: URL_ })
await admin.connect()
await admin.query(`create schema "${schema}"`)
const url = new URL(URL_)
url.searchParams.set('options', `-c search_path=${schema}`)
const connectionString = url.toString()

const SELECT = `select "users"."id", "users"."email", "users"."name", "users"."is_admin", "users"."disabled",
  "users"."created_at", ("users"."password_hash" is not null and "users"."password_hash" <> '') as "has_password",
  "sessions"."last_seen_at" as "session_last_seen_at", "sessions"."expires_at" as "session_expires_at",
  "sessions"."idp_mfa" as "session_idp_mfa", "mfa_totp"."enabled_at" as "mfa_enabled_at",
  "mfa_pending"."expires_at" as "mfa_pending_expires_at",
  exists (select 1 from "passkeys" where "passkeys"."user_id" = "users"."id") as "mfa_has_passkey",
  (select count(*) from "mfa_backup_codes" as "b" where "b"."user_id" = "users"."id" and "b"."used_at" is null) as "mfa_backup_codes_remaining",
  (select "value" from "settings" where "key" = 'two_factor_policy') as "two_factor_policy"
  from "sessions" inner join "users" on "users"."id" = "sessions"."user_id"
  left join "mfa_totp" on "mfa_totp"."user_id" = "users"."id"
  left join "mfa_pending" on "mfa_pending"."user_id" = "users"."id"
  where "sessions"."id" = $1 and "sessions"."revoked_at" is null and "users"."disabled" = $2`

// The narrow lookup: the credential and its user only (MFA state and policy asked apart).
const SELECT_CREDENTIAL_ONLY = `select "users"."id", "users"."email", "users"."name", "users"."is_admin", "users"."disabled",
  "users"."created_at", ("users"."password_hash" is not null and "users"."password_hash" <> '') as "has_password",
  "sessions"."last_seen_at" as "session_last_seen_at", "sessions"."expires_at" as "session_expires_at"
  from "sessions" inner join "users" on "users"."id" = "sessions"."user_id"
  where "sessions"."id" = $1 and "sessions"."revoked_at" is null and "users"."disabled" = $2`

const ids = []
{
  const setup = new pg.Client({ connectionString })
  await setup.connect()
  await setup.query(`
    create table users (id text primary key, email text not null, name text not null, is_admin boolean not null,
      disabled boolean not null, password_hash text, created_at timestamptz not null);
    create table sessions (id text primary key, user_id text not null references users(id), last_seen_at timestamptz not null,
      expires_at timestamptz not null, revoked_at timestamptz, idp_mfa boolean not null default false);
    create table mfa_totp (user_id text primary key, enabled_at timestamptz not null);
    create table mfa_pending (user_id text primary key, expires_at timestamptz not null);
    create table mfa_backup_codes (id text primary key, user_id text not null, used_at timestamptz);
    create index on mfa_backup_codes (user_id);
    create table passkeys (id text primary key, user_id text not null);
    create index on passkeys (user_id);
    create table settings (key text primary key, value text not null);
    insert into settings values ('two_factor_policy', '{"required":"off"}');`)
  for (let i = 0; i < SESSIONS; i++) {
    const [user, session] = [randomUUID(), randomUUID()]
    await setup.query(`insert into users values ($1, $2, 'User', false, false, 'x', now())`, [
      user,
      `${user}@example.com`,
    ])
    await setup.query(
      `insert into sessions values ($1, $2, now(), now() + interval '1 day', null, false)`,
      [session, user],
    )
    ids.push(session)
  }
  await setup.end()
}

const TIMESTAMPTZ_OID = 1184
const types = {
  getTypeParser: (oid, format) =>
    oid === TIMESTAMPTZ_OID ? (text) => text : pg.types.getTypeParser(oid, format),
}

/**
 * Runs `query(i)` QUERIES times with IN_FLIGHT at once; CPU µs per query and queries per second.
 */
async function measure(query) {
  let next = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < QUERIES) {
        const rows = await query(ids[next++ % ids.length])
        if (rows.length !== 1) throw new Error('expected one row')
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { cpu_us: (used.user + used.system) / QUERIES, qps: QUERIES / seconds }
}

const variants = []
const pool = new pg.Pool({ connectionString, max: POOL, types })
const kysely = new Kysely({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString, max: POOL, types }) }),
})
variants.push([
  'kysely + pg (before)',
  async (id) => (await kysely.executeQuery(CompiledQuery.raw(SELECT, [id, false]))).rows,
])
variants.push([
  'pg pool.query, unnamed',
  async (id) => (await pool.query(SELECT, [id, false])).rows,
])
variants.push([
  'pg pool.query, named',
  async (id) => (await pool.query({ name: 'auth', text: SELECT, values: [id, false] })).rows,
])
variants.push([
  'pg pool.query, named, credential only',
  async (id) =>
    (await pool.query({ name: 'credential', text: SELECT_CREDENTIAL_ONLY, values: [id, false] }))
      .rows,
])
// pg's pipeline mode (pg ≥ 8.23): queries are written without waiting for the previous answer, and
// the writes of one event-loop turn are corked into one system call (uncorked in setImmediate).
async function pipelined(clients) {
  const list = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new pg.Client({ connectionString, types, pipeline: true })
      await client.connect()
      return client
    }),
  )
  let turn = 0
  return async (id) => {
    const client = list[turn++ % list.length]
    const stream = client.connection.stream
    if (stream.writableCorked === 0) {
      stream.cork()
      setImmediate(() => stream.uncork())
    }
    return (await client.query({ name: 'auth', text: SELECT, values: [id, false] })).rows
  }
}
variants.push(['pg pipeline, 1 client, named', await pipelined(1)])
variants.push(['pg pipeline, 2 clients, named', await pipelined(2)])
let postgresJs = null
try {
  const postgres = require(process.env.POSTGRES_JS ?? 'postgres')
  postgresJs = postgres(connectionString, { max: POOL, types: {}, onnotice: () => undefined })
  variants.push([
    'postgres.js, prepared',
    (id) => postgresJs.unsafe(SELECT, [id, false], { prepare: true }),
  ])
} catch {
  console.error('postgres.js not installed: measured without it')
}

const results = Object.fromEntries(variants.map(([name]) => [name, []]))
try {
  // Warm-up: connections, prepared statements, JIT
  for (const [, query] of variants) await measure(query)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, query] of variants) results[name].push(await measure(query))
  }
} finally {
  await pool.end()
  await kysely.destroy()
  await postgresJs?.end()
  await admin.query(`drop schema "${schema}" cascade`)
  await admin.end()
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(
  JSON.stringify(
    {
      queries_per_round: QUERIES,
      rounds: ROUNDS,
      in_flight: IN_FLIGHT,
      results: Object.fromEntries(
        Object.entries(results).map(([name, runs]) => [
          name,
          {
            cpu_us_per_query: Math.round(median(runs.map((r) => r.cpu_us)) * 10) / 10,
            queries_per_second: Math.round(median(runs.map((r) => r.qps))),
          },
        ]),
      ),
    },
    null,
    2,
  ),
)
