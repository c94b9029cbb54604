import { sql, type Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'
import { up as createLog } from './0028_scim_requests.js'
import { up as addSubject } from './0095_scim_request_subject.js'

/**
 * The SCIM request log as two rings of fixed rows: 50 for requests with a credential, 10 for those
 * without, each row rewritten in place by the next request of its ring, the oldest first. An
 * insert and a delete per request left a dead row and a dead index entry behind each time, which
 * only VACUUM reclaims; where autovacuum is off or behind, every prune read them all again. An
 * update of a column no index covers is a heap-only update, whose old versions PostgreSQL reclaims
 * within the page as it goes (docs/decisions/0074-scim-request-log-ring.md).
 *
 * A row is written once its `created_at` is set. On PostgreSQL each ring has a sequence that
 * numbers its writes, so concurrent writers take distinct rows. The newest rows of the log this
 * replaces are kept.
 */
const RINGS = [
  { ring: 'credentialed', size: 50, sequence: 'scim_requests_credentialed_seq' },
  { ring: 'unauthenticated', size: 10, sequence: 'scim_requests_unauthenticated_seq' },
] as const

const COLUMNS = [
  'id',
  'created_at',
  'credential_id',
  'method',
  'path',
  'status',
  'scim_type',
  'duration_ms',
  'subject',
] as const

type LoggedRow = Record<(typeof COLUMNS)[number], unknown>

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const kept = await newestLogged(db)
  await db.schema.dropTable('scim_requests').execute()
  const t = columnTypes(engine)
  await db.schema
    .createTable('scim_requests')
    .addColumn('ring', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('id', 'text')
    .addColumn('created_at', t.timestamp)
    .addColumn('credential_id', 'text')
    .addColumn('method', 'text')
    .addColumn('path', 'text')
    .addColumn('status', 'integer')
    .addColumn('scim_type', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('subject', 'text', (c) => c.check(sql`length(subject) <= 256`))
    .addPrimaryKeyConstraint('scim_requests_ring_position_pkey', ['ring', 'position'])
    .execute()
  for (const { ring, size, sequence } of RINGS) {
    const rows = kept[ring]
    const slots = Array.from({ length: size }, (_, position) => ({
      ring,
      position,
      ...(rows[position] ?? {}),
    }))
    await db
      .insertInto('scim_requests' as never)
      .values(slots)
      .execute()
    if (engine === 'postgres') {
      // The next write takes the row after the newest kept one: the oldest.
      const start = sql.lit(rows.length)
      await sql`create sequence ${sql.id(sequence)} minvalue 0 start ${start}`.execute(db)
    }
  }
}

/** Each ring's newest rows of its kind, oldest first, as the log before the rings holds them. */
async function newestLogged(db: Kysely<unknown>) {
  const kept = {} as Record<(typeof RINGS)[number]['ring'], LoggedRow[]>
  for (const { ring, size } of RINGS) {
    const rows = (await db
      .selectFrom('scim_requests' as never)
      .select(COLUMNS as never)
      .where('credential_id' as never, ring === 'credentialed' ? 'is not' : 'is', null)
      .orderBy('created_at' as never, 'desc')
      .orderBy('id' as never, 'desc')
      .limit(size)
      .execute()) as LoggedRow[]
    kept[ring] = rows.reverse()
  }
  return kept
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const written = (await db
    .selectFrom('scim_requests' as never)
    .select(COLUMNS as never)
    .where('created_at' as never, 'is not', null)
    .execute()) as LoggedRow[]
  await db.schema.dropTable('scim_requests').execute()
  if (engine === 'postgres') {
    for (const { sequence } of RINGS) await sql`drop sequence ${sql.id(sequence)}`.execute(db)
  }
  // The log as it was: 0028 made it, 0095 added the subject.
  await createLog(db, engine)
  await addSubject(db)
  if (written.length > 0)
    await db
      .insertInto('scim_requests' as never)
      .values(written)
      .execute()
}
