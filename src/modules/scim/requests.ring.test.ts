/**
 * The SCIM request log's rings (requests.repo.ts writeScimRequest, migration
 * 0119_scim_request_ring): concurrent writes take distinct rows, the oldest row is the next one
 * rewritten, and the table never grows. On PostgreSQL only the ring's key is indexed, so every
 * write can be a heap-only update.
 */
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { isPostgres } from '../../db/engine.js'
import { useTestApp } from '../../../test/helpers/app.js'
import { writeScimRequest, type ScimRequestRow } from './requests.repo.js'
import { SCIM_REQUEST_LOG_SIZE, UNAUTHENTICATED_KEPT } from './requests.service.js'

const t = useTestApp()
let written = 0

function request(credentialId: string | null): ScimRequestRow {
  const n = written++
  return {
    id: `ring-${String(n).padStart(6, '0')}`,
    created_at: new Date(Date.UTC(2026, 0, 1) + n).toISOString(),
    credential_id: credentialId,
    method: 'GET',
    path: '/scim/v2/Users',
    status: 200,
    scim_type: null,
    duration_ms: 1,
    subject: null,
  }
}

async function ringIds(ring: 'credentialed' | 'unauthenticated'): Promise<string[]> {
  const rows = await t.deps.db
    .selectFrom('scim_requests')
    .select('id')
    .where('ring', '=', ring)
    .where('created_at', 'is not', null)
    .execute()
  return rows.map((row) => row.id!).sort()
}

describe('the SCIM request log rings', () => {
  it('holds every one of a concurrent burst of its size, and rewrites the oldest next', async () => {
    const burst = Array.from({ length: SCIM_REQUEST_LOG_SIZE }, () => request('credential-a'))
    await Promise.all(
      burst.map((row) => writeScimRequest(t.deps.db, 'credentialed', SCIM_REQUEST_LOG_SIZE, row)),
    )
    expect(await ringIds('credentialed')).toEqual(burst.map((row) => row.id).sort())

    const next = request('credential-a')
    await writeScimRequest(t.deps.db, 'credentialed', SCIM_REQUEST_LOG_SIZE, next)
    const after = await ringIds('credentialed')
    expect(after).toHaveLength(SCIM_REQUEST_LOG_SIZE)
    expect(after).toContain(next.id)
    expect(burst.filter((row) => !after.includes(row.id))).toHaveLength(1)
  })

  it('keeps the rings apart: requests without a credential never evict the others', async () => {
    const before = await ringIds('credentialed')
    for (let i = 0; i < 3 * UNAUTHENTICATED_KEPT; i++)
      await writeScimRequest(t.deps.db, 'unauthenticated', UNAUTHENTICATED_KEPT, request(null))
    expect(await ringIds('credentialed')).toEqual(before)
    const newest = Array.from({ length: UNAUTHENTICATED_KEPT }, (_, i) => written - 1 - i)
    expect(await ringIds('unauthenticated')).toEqual(
      newest.map((n) => `ring-${String(n).padStart(6, '0')}`).sort(),
    )
  })

  it('never grows: its rows are the rings, however many requests are written', async () => {
    for (let i = 0; i < 500; i++)
      await writeScimRequest(t.deps.db, 'credentialed', SCIM_REQUEST_LOG_SIZE, request('b'))
    const count = await t.deps.db
      .selectFrom('scim_requests')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(SCIM_REQUEST_LOG_SIZE + UNAUTHENTICATED_KEPT)
    if (!isPostgres(t.deps.db)) return
    // Only the key is indexed, and a write changes no key: heap-only updates.
    const indexes = await sql<{
      definition: string
    }>`select pg_get_indexdef(indexrelid) as definition
      from pg_index where indrelid = 'scim_requests'::regclass`.execute(t.deps.db)
    expect(indexes.rows.map((row) => row.definition.replace(/^.* USING /, ''))).toEqual([
      'btree (ring, "position")',
    ])
  })
})
