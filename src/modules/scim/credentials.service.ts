/**
 * SCIM credentials: bearer tokens an administrator creates for an identity provider. Shown once,
 * stored as SHA-256, revocable, named; they authenticate only under /scim/v2 (http.ts) and a
 * personal API token or session never authenticates there. The format `scim_` + 43 base62
 * characters is distinct from personal tokens (`sb_`), so a leaked one is recognisable and can
 * never be mistaken for the other kind.
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { sha256Hex } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { randomString } from '../../lib/random.js'
import { recordAudit, type Actor } from '../audit/service.js'
import type { RequestContext } from '../../identity/caller.js'
import {
  findLiveScimCredential,
  insertScimCredential,
  listLiveScimCredentials,
  revokeScimCredential,
  touchScimCredential,
  type ScimCredentialRow,
} from './credentials.repo.js'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const SCIM_TOKEN_PREFIX = 'scim_'
const SHAPE = /^scim_[0-9A-Za-z]{43}$/
const TOUCH_INTERVAL_MS = 60_000

export async function createScimCredential(
  deps: Deps,
  actor: Actor,
  input: { name: string },
  ctx: RequestContext,
): Promise<ScimCredentialRow & { token: string }> {
  // 43 base62 characters ≈ 256 bits.
  const token = `${SCIM_TOKEN_PREFIX}${randomString(BASE62, 43)}`
  try {
    return await insertAudited(deps, actor, input, ctx, token)
  } catch (error) {
    // One live credential per name (migration 0033's unique index): a form sent twice at once
    // creates one, and the others learn nothing of its secret.
    if (isUniqueViolation(error)) {
      throw new AppError('ALREADY_EXISTS', {
        message:
          'A SCIM credential with this name exists. Choose another name, or revoke that one first.',
        details: 'name',
      })
    }
    throw error
  }
}

async function insertAudited(
  deps: Deps,
  actor: Actor,
  input: { name: string },
  ctx: RequestContext,
  token: string,
): Promise<ScimCredentialRow & { token: string }> {
  return deps.db.transaction().execute(async (tx) => {
    const row = await insertScimCredential(tx, {
      id: newId(),
      name: input.name,
      prefix: token.slice(0, 12),
      token_hash: sha256Hex(token),
      created_at: deps.clock.now().toISOString(),
      created_by: actor.id,
      last_used_at: null,
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'scim.credential_create',
      actor,
      target: { type: 'scim_credential', id: row.id },
      metadata: { name: row.name, prefix: row.prefix },
    })
    return { ...row, token }
  })
}

export async function listScimCredentials(deps: Deps): Promise<ScimCredentialRow[]> {
  return listLiveScimCredentials(deps.db)
}

export async function revokeScimCredentialById(
  deps: Deps,
  actor: Actor,
  id: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const row = await revokeScimCredential(tx, id, deps.clock.now().toISOString())
    if (row === null) throw new AppError('NOT_FOUND', { message: 'No such SCIM credential.' })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'scim.credential_revoke',
      actor,
      target: { type: 'scim_credential', id },
      metadata: { name: row.name },
    })
  })
}

/** The credential a bearer token names, or null; a token of another shape costs no query. */
export async function authenticateScimToken(
  deps: Deps,
  token: string,
): Promise<ScimCredentialRow | null> {
  if (!SHAPE.test(token)) return null
  const found = await findLiveScimCredential(deps.db, sha256Hex(token))
  if (found === null) return null
  const now = deps.clock.now()
  if (
    found.last_used_at === null ||
    now.getTime() - new Date(found.last_used_at).getTime() >= TOUCH_INTERVAL_MS
  ) {
    const staleBefore = new Date(now.getTime() - TOUCH_INTERVAL_MS).toISOString()
    touchScimCredential(deps.db, found.id, now.toISOString(), staleBefore).catch((error: Error) =>
      deps.logger.warn(
        { error: { message: error.message } },
        'could not record SCIM credential activity',
      ),
    )
  }
  return found
}
