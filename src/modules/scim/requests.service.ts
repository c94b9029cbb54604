/**
 * The SCIM request log: the last SCIM_REQUEST_LOG_SIZE requests under /scim/v2, on every instance
 * together (one table), so an administrator can see why a provisioning run failed — method, path
 * without its query string, status, scimType, duration and which credential, and on a 409
 * uniqueness the userName or displayName that collided (the log is for administrators, who see
 * the users anyway). Never a body, a query string (filters carry people's names and addresses), a
 * header or a secret.
 *
 * Requests without a valid credential (401, and the 429 of the per-IP limit on failed
 * authentication) are logged too — a wrongly pasted token is the commonest failure — but sampled
 * and kept apart, since anyone on the network can send them: at most
 * UNAUTHENTICATED_PER_MINUTE of them are written per minute (counted in the shared counters, so
 * across instances when Redis is configured; the rest cost no write at all), and they are kept in
 * a ring of their own of UNAUTHENTICATED_KEPT rows, so a flood of them never evicts the
 * credentialed requests an administrator is looking for. The table never grows: each request
 * rewrites the oldest row of its ring (requests.repo.ts writeScimRequest).
 */
import type { Deps } from '../../deps.js'
import { newId } from '../../lib/ids.js'
import {
  listScimRequests,
  writeScimRequest,
  type ScimRequestRing,
  type ScimRequestView,
} from './requests.repo.js'

/** The rings' sizes are their rows, made by migration 0119_scim_request_ring. */
export const SCIM_REQUEST_LOG_SIZE = 50
export const UNAUTHENTICATED_PER_MINUTE = 5
export const UNAUTHENTICATED_KEPT = 10
const RING_SIZES: Record<ScimRequestRing, number> = {
  credentialed: SCIM_REQUEST_LOG_SIZE,
  unauthenticated: UNAUTHENTICATED_KEPT,
}
const MAX_PATH = 200
const MAX_SUBJECT = 256
const MINUTE = 60_000

export interface ScimRequestRecord {
  credentialId: string | null
  method: string
  url: string
  status: number
  scimType: string | null
  durationMs: number
  /** What a 409 uniqueness collided on; null otherwise. */
  subject: string | null
}

/** The path as logged: no query string, at most MAX_PATH characters. */
export function loggedPath(url: string): string {
  const path = url.split('?', 1)[0] ?? ''
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 1)}…` : path
}

/** At most MAX_SUBJECT characters (code points, as the column's check counts them). */
function loggedSubject(subject: string | null): string | null {
  if (subject === null) return null
  const chars = Array.from(subject)
  return chars.length > MAX_SUBJECT ? `${chars.slice(0, MAX_SUBJECT - 1).join('')}…` : subject
}

export async function recordScimRequest(deps: Deps, record: ScimRequestRecord): Promise<void> {
  const credentialed = record.credentialId !== null
  if (!credentialed) {
    const sample = await deps.counters.increment('scim:request-log:unauthenticated', MINUTE)
    if (sample.count > UNAUTHENTICATED_PER_MINUTE) return
  }
  const row = {
    id: newId(),
    created_at: deps.clock.now().toISOString(),
    credential_id: record.credentialId,
    method: record.method.slice(0, 10),
    path: loggedPath(record.url),
    status: record.status,
    scim_type: record.scimType,
    duration_ms: Math.max(0, Math.round(record.durationMs)),
    subject: loggedSubject(record.subject),
  }
  const ring = credentialed ? 'credentialed' : 'unauthenticated'
  await writeScimRequest(deps.db, ring, RING_SIZES[ring], row)
}

export async function recentScimRequests(deps: Deps): Promise<ScimRequestView[]> {
  return listScimRequests(deps.db, SCIM_REQUEST_LOG_SIZE)
}
