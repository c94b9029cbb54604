/**
 * The SCIM request log: the last SCIM_REQUEST_LOG_SIZE requests under /scim/v2, on every instance
 * together (one table), so an administrator can see why a provisioning run failed — method, path
 * without its query string, status, scimType, duration and which credential. Requests without a
 * valid credential are logged too (credential null): a wrongly pasted token is the commonest
 * failure, and the per-IP limit on failed authentication bounds how fast they arrive. Never a
 * body, a query string (filters carry people's names and addresses), a header or a secret.
 */
import type { Deps } from '../../deps.js'
import { newId } from '../../lib/ids.js'
import { insertScimRequest, listScimRequests, pruneScimRequests, type ScimRequestView } from './requests.repo.js'

export const SCIM_REQUEST_LOG_SIZE = 50
const MAX_PATH = 200

export interface ScimRequestRecord {
  credentialId: string | null
  method: string
  url: string
  status: number
  scimType: string | null
  durationMs: number
}

/** The path as logged: no query string, at most MAX_PATH characters. */
export function loggedPath(url: string): string {
  const path = url.split('?', 1)[0] ?? ''
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 1)}…` : path
}

export async function recordScimRequest(deps: Deps, record: ScimRequestRecord): Promise<void> {
  await insertScimRequest(deps.db, {
    id: newId(),
    created_at: deps.clock.now().toISOString(),
    credential_id: record.credentialId,
    method: record.method.slice(0, 10),
    path: loggedPath(record.url),
    status: record.status,
    scim_type: record.scimType,
    duration_ms: Math.max(0, Math.round(record.durationMs)),
  })
  await pruneScimRequests(deps.db, SCIM_REQUEST_LOG_SIZE)
}

export async function recentScimRequests(deps: Deps): Promise<ScimRequestView[]> {
  return listScimRequests(deps.db, SCIM_REQUEST_LOG_SIZE)
}
