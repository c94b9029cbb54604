/**
 * Migration 0119 on a database whose request log holds more than the rings keep: the newest 50
 * requests with a credential and the newest 10 without become the rings' rows, the oldest kept
 * first, so the next request rewrites the oldest; down gives back a log of the written rows.
 */
import type { Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { isPostgres } from '../../db/engine.js'
import { useTestApp } from '../../../test/helpers/app.js'
import { down, up } from '../../migrations/0119_scim_request_ring.js'
import { listScimRequests, writeScimRequest } from './requests.repo.js'
import { SCIM_REQUEST_LOG_SIZE } from './requests.service.js'

const t = useTestApp()

function logged(n: number, credentialId: string | null) {
  return {
    id: `m119-${String(n).padStart(3, '0')}`,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    credential_id: credentialId,
    method: 'POST',
    path: '/scim/v2/Users',
    status: 201,
    scim_type: null,
    duration_ms: n,
    subject: null,
  }
}

describe('migration 0119 (the request log as rings)', () => {
  it('keeps the newest of each kind, the oldest kept rewritten first; down gives them back', async () => {
    const db = t.deps.db as unknown as Kysely<unknown>
    const engine = isPostgres(t.deps.db) ? 'postgres' : 'sqlite'
    await down(db, engine)
    const credentialed = Array.from({ length: 70 }, (_, n) => logged(n, 'credential-a'))
    const anonymous = Array.from({ length: 15 }, (_, n) => logged(100 + n, null))
    await db
      .insertInto('scim_requests' as never)
      .values([...credentialed, ...anonymous] as never)
      .execute()
    await up(db, engine)

    const shown = await listScimRequests(t.deps.db, 100)
    const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id).sort()
    expect(ids(shown)).toEqual(ids([...credentialed.slice(20), ...anonymous.slice(5)]))
    expect(shown[0]).toEqual({ ...anonymous.at(-1), credential_name: null })

    const next = { ...logged(200, 'credential-a'), id: 'm119-next' }
    await writeScimRequest(t.deps.db, 'credentialed', SCIM_REQUEST_LOG_SIZE, next)
    const after = ids(await listScimRequests(t.deps.db, 100))
    expect(after).toContain('m119-next')
    expect(after).not.toContain(credentialed[20]!.id)
    expect(after).toContain(credentialed[21]!.id)

    await down(db, engine)
    const back = await db
      .selectFrom('scim_requests' as never)
      .select('id' as never)
      .execute()
    expect(ids(back as Array<{ id: string }>)).toEqual(after)
    await up(db, engine)
    expect(await listScimRequests(t.deps.db, 100)).toHaveLength(60)
  })
})
