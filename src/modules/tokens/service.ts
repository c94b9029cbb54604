/**
 * Personal API tokens (docs/API.md#personal-api-tokens): created only from an interactive session,
 * shown once, stored as a hash, at most 100 active per user. Each new token carries permissions
 * (permissions.ts), an organization boundary and an expiry within the instance's maximum lifetime
 * (policy.ts). Tokens created without permissions (before migration 0024) are "legacy": full
 * access, no boundary, marked in views.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { pageWindow } from '../../db/keyset.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { lockUser } from '../users/repo.js'
import { findOrganizationOfMember } from '../organizations/repo.js'
import { apiTokenPrefix, generateApiToken, hashApiToken } from '../../identity/token-format.js'
import {
  isAdminPermission,
  normalizePermissions,
  type TokenPermission,
} from '../../identity/permissions.js'
import { currentTokenPolicy } from './policy.js'
import { DEFAULT_LIFETIME_DAYS } from './limits.js'
import {
  countActiveApiTokens,
  insertApiToken,
  listActiveApiTokens,
  revokeApiToken,
  type ApiTokenRow,
} from './repo.js'
import type { ApiTokenView, CreateApiTokenBody } from './schemas.js'

export const MAX_ACTIVE_TOKENS = 100
const DAY_MS = 86_400_000

export function toApiTokenView(row: ApiTokenRow): ApiTokenView {
  const organizationIds =
    row.organization_ids === null ? null : (JSON.parse(row.organization_ids) as string[])
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    last_used_ip: row.last_used_ip,
    expires_at: row.expires_at,
    legacy: row.permissions === null,
    permissions:
      row.permissions === null ? [] : normalizePermissions(JSON.parse(row.permissions) as string[]),
    organization_boundary:
      organizationIds === null ? 'all' : organizationIds.length === 0 ? 'personal' : 'selected',
    organization_ids: organizationIds ?? [],
  }
}

function invalid(field: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', { details: [{ field, message }] })
}

/** The expiry of a new token: always set, 30 days by default, never past the instance's maximum. */
async function expiryFor(deps: Deps, input: CreateApiTokenBody, now: Date): Promise<Date> {
  const { max_lifetime_days: maxDays } = await currentTokenPolicy(deps)
  if (input.expires_in_days !== undefined && input.expires_at !== undefined) {
    throw invalid('expires_at', 'give either expires_in_days or expires_at, not both')
  }
  if (input.expires_at !== undefined) {
    const at = Date.parse(input.expires_at)
    if (Number.isNaN(at) || at <= now.getTime())
      throw invalid('expires_at', 'must be a date-time in the future')
    if (at > now.getTime() + maxDays * DAY_MS)
      throw invalid(
        'expires_at',
        `must be within ${maxDays} days (the instance's maximum token lifetime)`,
      )
    return new Date(at)
  }
  const days = input.expires_in_days ?? Math.min(DEFAULT_LIFETIME_DAYS, maxDays)
  if (days > maxDays)
    throw invalid(
      'expires_in_days',
      `must be at most ${maxDays} (the instance's maximum token lifetime)`,
    )
  return addSeconds(now, days * 86400)
}

/** The boundary as stored: null = all organizations; else the listed ids ([] = personal only). */
function boundaryOf(input: CreateApiTokenBody): string[] | null {
  const boundary = input.organization_boundary ?? 'personal'
  const ids = input.organization_ids ?? []
  if (boundary !== 'selected') {
    if (ids.length > 0) throw invalid('organization_ids', "is only for the 'selected' boundary")
    return boundary === 'all' ? null : []
  }
  if (ids.length === 0)
    throw invalid(
      'organization_ids',
      "must name at least one organization for the 'selected' boundary",
    )
  return [...ids].sort()
}

export async function createApiToken(
  deps: Deps,
  caller: Caller,
  input: CreateApiTokenBody,
  ctx: RequestContext,
): Promise<ApiTokenView & { token: string }> {
  // Administrators' areas only from an administrator: anyone else would mint what they do not have.
  const adminAsked = input.permissions.find(isAdminPermission)
  if (adminAsked !== undefined && !caller.user.is_admin) {
    throw new AppError('FORBIDDEN', { message: `Only administrators can grant ${adminAsked}.` })
  }
  const permissions: TokenPermission[] = normalizePermissions(input.permissions)
  const organizationIds = boundaryOf(input)
  const token = generateApiToken()
  const now = deps.clock.now()
  const expiresAt = await expiryFor(deps, input, now)
  return deps.db.transaction().execute(async (tx) => {
    // The user row is locked so that concurrent creations cannot both pass the quota check.
    await lockUser(tx, caller.user.id)
    for (const organizationId of organizationIds ?? []) {
      if ((await findOrganizationOfMember(tx, organizationId, caller.user.id)) === null) {
        throw new AppError('NOT_FOUND', {
          message: 'No such organization.',
          details: [
            {
              field: 'organization_ids',
              message: `no organization of yours has the id ${organizationId}`,
            },
          ],
        })
      }
    }
    if ((await countActiveApiTokens(tx, caller.user.id, now.toISOString())) >= MAX_ACTIVE_TOKENS) {
      throw new AppError('LIMIT_REACHED', {
        message: `You already have ${MAX_ACTIVE_TOKENS} active API tokens; revoke one first.`,
        details: `at most ${MAX_ACTIVE_TOKENS} active API tokens per user`,
      })
    }
    const row = await insertApiToken(tx, {
      id: newId(),
      user_id: caller.user.id,
      name: input.name,
      prefix: apiTokenPrefix(token),
      token_hash: hashApiToken(token),
      created_at: now.toISOString(),
      last_used_at: null,
      last_used_ip: null,
      expires_at: expiresAt.toISOString(),
      permissions: JSON.stringify(permissions),
      organization_ids: organizationIds === null ? null : JSON.stringify(organizationIds),
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'token.create',
      actor: caller.user,
      target: { type: 'api_token', id: row.id },
      metadata: {
        name: row.name,
        prefix: row.prefix,
        expires_at: row.expires_at,
        permissions,
        organization_ids: organizationIds,
      },
    })
    return { ...toApiTokenView(row), token }
  })
}

export async function listApiTokens(
  deps: Deps,
  caller: Caller,
  query: PageQuery,
): Promise<Page<ApiTokenView>> {
  const window = pageWindow(query)
  const rows = await listActiveApiTokens(
    deps.db,
    caller.user.id,
    deps.clock.now().toISOString(),
    window,
  )
  return toPage(rows, window.limit, toApiTokenView, (row) => [row.created_at, row.id])
}

/** Revokes one of the caller's active tokens; the next request with it is refused. */
export async function revokeOwnApiToken(
  deps: Deps,
  caller: Caller,
  tokenId: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    if (!(await revokeApiToken(tx, caller.user.id, tokenId, deps.clock.now().toISOString()))) {
      throw new AppError('NOT_FOUND', { message: 'No such API token.' })
    }
    await recordAudit(tx, deps.clock, ctx, {
      action: 'token.revoke',
      actor: caller.user,
      target: { type: 'api_token', id: tokenId },
    })
  })
}
