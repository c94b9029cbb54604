/**
 * Identity providers (docs/API.md#identity-providers), administered by administrators. The client
 * secret is write-only: stored with AES-256-GCM bound to the provider's id, answered only as
 * `client_secret_set`.
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { AppError, type FieldProblem } from '../../errors.js'
import { encrypt } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { hostLiteralProblem } from '../../lib/outbound.js'
import {
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  toPage,
  type Page,
  type PageQuery,
} from '../../lib/pagination.js'
import { recordAudit, type Actor } from '../audit/service.js'
import type { RequestContext } from '../../identity/caller.js'
import { renameOidcIdentities, unlinkOidcIdentities } from './accounts.repo.js'
import { issuerUrlProblem } from './client.js'
import {
  deleteProvider,
  findProviderById,
  insertProvider,
  listProviderRows,
  lockProvider,
  updateProvider,
  type ProviderChanges,
  type ProviderRecord,
} from './providers.repo.js'
import {
  DEFAULT_SCOPES,
  RESERVED_PROVIDER_KEYS,
  type CheckOidcProviderBody,
  type OidcProviderCheckView,
  type CreateOidcProviderBody,
  type OidcProviderView,
  type UpdateOidcProviderBody,
} from './providers.schemas.js'
import { callbackUrl } from './urls.js'

export function toProviderView(deps: Deps, provider: ProviderRecord): OidcProviderView {
  return {
    id: provider.id,
    provider_key: provider.provider_key,
    name: provider.name,
    issuer_url: provider.issuer_url,
    client_id: provider.client_id,
    client_secret_set: provider.client_secret_set,
    scopes: provider.scopes.split(' '),
    auto_create_users: provider.auto_create_users,
    default_role: provider.default_role,
    enabled: provider.enabled,
    trust_email: provider.trust_email,
    trusts_mfa_amr: provider.trusts_mfa_amr,
    callback_url: callbackUrl(deps.config.publicUrl, provider.provider_key),
    created_at: provider.created_at,
    updated_at: provider.updated_at,
  }
}

/** The secret's ciphertext is bound to its row, so one copied to another provider does not open. */
export function clientSecretContext(providerId: string): string {
  return `oidc_providers.client_secret:${providerId}`
}

/** Sign-in needs an ID token, so `openid` is always requested (added first when missing). */
function normalizeScopes(scopes: string[]): string {
  return [...new Set(['openid', ...scopes])].join(' ')
}

/**
 * The rules the schema cannot express, all reported at once. The routes also check them before
 * asking for the administrator's proof, so a mistyped issuer is named before a password is asked.
 */
export function assertAcceptable(
  deps: Deps,
  body: { provider_key?: string; issuer_url?: string },
): void {
  const details: FieldProblem[] = []
  if (body.provider_key !== undefined && RESERVED_PROVIDER_KEYS.includes(body.provider_key)) {
    details.push({
      field: 'provider_key',
      message: `is reserved (${RESERVED_PROVIDER_KEYS.join(', ')})`,
    })
  }
  // A literal address is judged at once; a name each time it is resolved (lib/outbound.ts).
  const issuerProblem =
    body.issuer_url === undefined
      ? null
      : (issuerUrlProblem(body.issuer_url) ??
        hostLiteralProblem(new URL(body.issuer_url).hostname, deps.config.outbound))
  // Not an https address at all is a format problem: a client then says what to enter.
  if (issuerProblem !== null)
    details.push({
      field: 'issuer_url',
      message: issuerProblem,
      ...(issuerProblem.startsWith('must be an https URL')
        ? { code: 'format' as const, format: 'uri' }
        : { code: 'invalid' as const }),
    })
  if (details.length > 0) throw new AppError('VALIDATION_FAILED', { details })
}

/**
 * The callback URL for a key not saved yet, and the issuer's discovery document fetched
 * now through the outbound rules (guarded destination, timeout, size cap) and checked — the
 * console calls this before it saves, so a mistyped issuer is named at once, not at the first
 * sign-in. Nothing is stored or cached.
 */
export async function checkOidcProvider(
  deps: Deps,
  body: CheckOidcProviderBody,
): Promise<OidcProviderCheckView> {
  assertAcceptable(deps, body)
  let issuer: OidcProviderCheckView['issuer'] = null
  if (body.issuer_url !== undefined) {
    const check = await deps.oidc.checkIssuer(body.issuer_url)
    issuer = check.ok
      ? {
          ok: true,
          issuer: check.issuer,
          authorization_endpoint: check.authorizationEndpoint,
          token_endpoint: check.tokenEndpoint,
          jwks_uri: check.jwksUri,
        }
      : { ok: false, problem: check.problem, detail: check.detail }
  }
  return {
    callback_url:
      body.provider_key === undefined
        ? null
        : callbackUrl(deps.config.publicUrl, body.provider_key),
    issuer,
  }
}

function keyTaken(): AppError {
  return new AppError('ALREADY_EXISTS', {
    message: 'A provider with this key already exists.',
    details: 'provider_key',
  })
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such identity provider.' })
}

async function uniqueKey<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    throw isUniqueViolation(error) ? keyTaken() : error
  }
}

export async function listOidcProviders(
  deps: Deps,
  query: PageQuery,
): Promise<Page<OidcProviderView>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  // Keys are unique, so the key alone is the cursor; the second part is unused.
  const afterKey = decodeCursor(query.cursor)?.[0] ?? null
  const rows = await listProviderRows(deps.db, { limit, afterKey, enabledOnly: false })
  return toPage(
    rows,
    limit,
    (row) => toProviderView(deps, row),
    (row) => [row.provider_key, ''],
  )
}

export async function getOidcProvider(deps: Deps, id: string): Promise<OidcProviderView> {
  const provider = await findProviderById(deps.db, id)
  if (provider === null) throw notFound()
  return toProviderView(deps, provider)
}

export async function createOidcProvider(
  deps: Deps,
  actor: Actor,
  body: CreateOidcProviderBody,
  ctx: RequestContext,
): Promise<OidcProviderView> {
  assertAcceptable(deps, body)
  const id = newId()
  const now = deps.clock.now().toISOString()
  const provider = await deps.db.transaction().execute(async (tx) => {
    const created = await uniqueKey(
      insertProvider(tx, {
        id,
        provider_key: body.provider_key,
        name: body.name,
        issuer_url: body.issuer_url,
        client_id: body.client_id,
        client_secret_encrypted:
          body.client_secret === null
            ? null
            : encrypt(deps.secrets.encryptionKey, body.client_secret, clientSecretContext(id)),
        scopes: normalizeScopes(body.scopes ?? DEFAULT_SCOPES),
        auto_create_users: body.auto_create_users ?? false,
        default_role: body.default_role ?? 'user',
        enabled: body.enabled ?? true,
        trust_email: body.trust_email ?? false,
        trusts_mfa_amr: body.trusts_mfa_amr ?? false,
        created_at: now,
        updated_at: now,
      }),
    )
    await recordAudit(tx, deps.clock, ctx, {
      action: 'oidc_provider.create',
      actor,
      target: { type: 'oidc_provider', id },
      metadata: { provider_key: created.provider_key },
    })
    return created
  })
  return toProviderView(deps, provider)
}

/**
 * Whether an update changes who the provider may sign in as: its issuer, `trust_email` or
 * `trusts_mfa_amr` (false for an unknown provider: the update answers 404).
 */
export async function changesTrust(
  deps: Deps,
  id: string,
  body: UpdateOidcProviderBody,
): Promise<boolean> {
  const current = await findProviderById(deps.db, id)
  if (current === null) return false
  return (
    (body.issuer_url !== undefined && body.issuer_url !== current.issuer_url) ||
    (body.trust_email !== undefined && body.trust_email !== current.trust_email) ||
    (body.trusts_mfa_amr !== undefined && body.trusts_mfa_amr !== current.trusts_mfa_amr)
  )
}

/**
 * A partial update. `client_secret` omitted keeps the secret; a new `provider_key` carries the
 * provider's linked users along (their `oidc_provider` follows it), in the same transaction.
 */
export async function updateOidcProvider(
  deps: Deps,
  actor: Actor,
  id: string,
  body: UpdateOidcProviderBody,
  ctx: RequestContext,
): Promise<OidcProviderView> {
  assertAcceptable(deps, body)
  const { client_secret, scopes, ...fields } = body
  const changes: ProviderChanges = { ...fields, updated_at: deps.clock.now().toISOString() }
  if (scopes !== undefined) changes.scopes = normalizeScopes(scopes)
  if (client_secret !== undefined) {
    changes.client_secret_encrypted =
      client_secret === null
        ? null
        : encrypt(deps.secrets.encryptionKey, client_secret, clientSecretContext(id))
  }
  const provider = await deps.db.transaction().execute(async (tx) => {
    const previous = await lockProvider(tx, id)
    if (previous === null) throw notFound()
    const previousKey = previous.provider_key
    // The stored client secret never follows the provider to another issuer.
    const current = await findProviderById(tx, id)
    const trustChanged =
      (body.issuer_url !== undefined && body.issuer_url !== previous.issuer_url) ||
      (body.trust_email !== undefined && body.trust_email !== current?.trust_email) ||
      (body.trusts_mfa_amr !== undefined && body.trusts_mfa_amr !== current?.trusts_mfa_amr)
    if (
      body.issuer_url !== undefined &&
      body.issuer_url !== previous.issuer_url &&
      current?.client_secret_set === true &&
      client_secret === undefined
    ) {
      throw new AppError('VALIDATION_FAILED', {
        details: [
          {
            field: 'client_secret',
            message: 'must be sent again (or null for a public client) when issuer_url changes',
          },
        ],
      })
    }
    const updated = (await uniqueKey(updateProvider(tx, id, changes)))!
    if (updated.provider_key !== previousKey) {
      await renameOidcIdentities(tx, {
        from: previousKey,
        to: updated.provider_key,
        at: updated.updated_at,
      })
    }
    // A subject means someone only at its issuer: at another issuer the same `sub` may
    // be anybody, so the accounts linked under the old one are unlinked, in this transaction.
    const usersUnlinked =
      updated.issuer_url === previous.issuer_url
        ? 0
        : await unlinkOidcIdentities(tx, updated.provider_key, updated.updated_at)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'oidc_provider.update',
      actor,
      target: { type: 'oidc_provider', id },
      metadata: {
        provider_key: updated.provider_key,
        fields: Object.keys(body).sort(),
        ...(updated.issuer_url !== previous.issuer_url && { users_unlinked: usersUnlinked }),
        ...(trustChanged && { trust_changed: true }),
      },
    })
    return updated
  })
  return toProviderView(deps, provider)
}

/**
 * Deletes the provider. Its users keep their accounts but are unlinked (`oidc_provider` and
 * `oidc_sub` cleared): a subject is unique only at its issuer, so a provider created later under
 * the same key must not inherit them. They can sign in with a password, or be linked again by a
 * verified email through another provider.
 */
export async function deleteOidcProvider(
  deps: Deps,
  actor: Actor,
  id: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const providerKey = await deleteProvider(tx, id)
    if (providerKey === null) throw notFound()
    const unlinked = await unlinkOidcIdentities(tx, providerKey, deps.clock.now().toISOString())
    await recordAudit(tx, deps.clock, ctx, {
      action: 'oidc_provider.delete',
      actor,
      target: { type: 'oidc_provider', id },
      metadata: { provider_key: providerKey, users_unlinked: unlinked },
    })
  })
  deps.oidc.forget(id)
}
