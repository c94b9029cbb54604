/**
 * The typed sections (SMTP, AI): each is one settings row under a reserved key, holding a JSON
 * object whose secrets are encrypted with AES-256-GCM, bound to the row's key so a ciphertext
 * copied elsewhere does not open. Only the sections' own endpoints write them; the generic
 * endpoint refuses their keys and shows them sanitized.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { decrypt, DecryptionError, encrypt } from '../../lib/crypto.js'
import { recordAudit, type Actor } from '../audit/service.js'
import type { AuditMetadata } from '../audit/fact-keys.js'
import type { RequestContext } from '../../identity/caller.js'
import { findSettingRow, lockSettingRow, upsertSettingRow, type SettingRow } from './repo.js'
import type { AiView, SmtpView } from './schemas.js'

/**
 * Keys owned by typed sections (today's and billing's, reserved for it): never generic settings.
 */
const RESERVED_NAMESPACES = [
  'smtp',
  'ai',
  'billing',
  'two_factor_policy',
  'first_run_checklist',
  'api_tokens',
  'go_links',
  'sign_up',
]

export function isReservedKey(key: string): boolean {
  return RESERVED_NAMESPACES.some(
    (namespace) => key === namespace || key.startsWith(`${namespace}.`),
  )
}

export interface Section<Stored extends object> {
  key: string
  defaults: Stored
}

export interface StoredSmtp {
  enabled: boolean
  host: string | null
  port: number
  secure: boolean
  username: string | null
  from_address: string | null
  from_name: string | null
  password_encrypted: string | null
  /** Credentials without TLS only to a loopback host, and only when this says so. */
  plaintext_auth_on_loopback: boolean
}

export const SMTP_SECTION: Section<StoredSmtp> = {
  key: 'smtp',
  defaults: {
    enabled: false,
    host: null,
    port: 587,
    secure: false,
    username: null,
    from_address: null,
    from_name: null,
    password_encrypted: null,
    plaintext_auth_on_loopback: false,
  },
}

/** docs/API.md#settings: the password is never returned, in any form — only whether one is set. */
export function toSmtpView(smtp: StoredSmtp): SmtpView {
  return {
    enabled: smtp.enabled,
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    username: smtp.username,
    from_address: smtp.from_address,
    from_name: smtp.from_name,
    password_set: smtp.password_encrypted !== null,
    plaintext_auth_on_loopback: smtp.plaintext_auth_on_loopback,
  }
}

export interface StoredAi {
  enabled: boolean
  provider: AiView['provider']
  base_url: string
  model: string | null
  api_key_encrypted: string | null
  /** Link suggestions offer only tags the person has (no new ones). */
  suggestions_existing_tags_only: boolean
  /** Model calls per person per UTC hour for link suggestions. */
  suggestions_hourly_limit: number
  /** The whole model call, in seconds; then local suggestions. */
  timeout_seconds: number
  /** The provider may be on a private network (plain http there too); nothing else may. */
  allow_private_network: boolean
}

export const AI_SECTION: Section<StoredAi> = {
  key: 'ai',
  defaults: {
    enabled: false,
    provider: 'openai',
    base_url: 'https://api.openai.com/v1',
    model: null,
    api_key_encrypted: null,
    suggestions_existing_tags_only: false,
    suggestions_hourly_limit: 60,
    timeout_seconds: 10,
    allow_private_network: false,
  },
}

export function toAiView(ai: StoredAi): AiView {
  return {
    enabled: ai.enabled,
    provider: ai.provider,
    base_url: ai.base_url,
    model: ai.model,
    api_key_set: ai.api_key_encrypted !== null,
    suggestions_existing_tags_only: ai.suggestions_existing_tags_only,
    suggestions_hourly_limit: ai.suggestions_hourly_limit,
    timeout_seconds: ai.timeout_seconds,
    allow_private_network: ai.allow_private_network,
  }
}

const SANITIZERS = new Map<string, (text: string) => unknown>([
  [SMTP_SECTION.key, (text) => toSmtpView(parseSection(SMTP_SECTION, text))],
  [AI_SECTION.key, (text) => toAiView(parseSection(AI_SECTION, text))],
  // The two-factor policy holds no secret; shown as stored.
  ['two_factor_policy', (text) => JSON.parse(text) as unknown],
  // The API token policy holds no secret either.
  ['api_tokens', (text) => JSON.parse(text) as unknown],
  // Go-link slug matching holds no secret either.
  ['go_links', (text) => JSON.parse(text) as unknown],
  // Sign-up through invitations holds no secret either.
  ['sign_up', (text) => JSON.parse(text) as unknown],
])

/**
 * What the generic endpoints may show of a reserved key's row: the section's sanitized view, or
 * undefined for a reserved key without one (such a row is not shown at all).
 */
export function sanitizedSection(key: string, text: string): unknown {
  return SANITIZERS.get(key)?.(text)
}

export interface StoredSection<Stored> {
  stored: Stored
  /** The row as stored (null when never configured): its text fingerprints the configuration. */
  row: SettingRow | null
}

/**
 * The stored object over the defaults, so a field added later reads as its default in older rows.
 */
export function parseSection<Stored extends object>(
  section: Section<Stored>,
  text: string | null,
): Stored {
  if (text === null) return { ...section.defaults }
  const parsed: unknown = JSON.parse(text)
  return { ...section.defaults, ...(typeof parsed === 'object' && parsed !== null ? parsed : {}) }
}

export async function readSection<Stored extends object>(
  deps: Deps,
  section: Section<Stored>,
): Promise<StoredSection<Stored>> {
  const row = await findSettingRow(deps.db, section.key)
  return { stored: parseSection(section, row?.value ?? null), row }
}

export interface SectionChange {
  actor: Actor
  ctx: RequestContext
  /** The audit action, e.g. `smtp.update`. */
  action: string
  /** Names of the fields the request sent (never their values). */
  fields: string[]
  /** More for the audit event (never a secret). */
  metadata?: AuditMetadata
}

/**
 * Read-modify-write of a section in one transaction with its row locked; `apply` may throw (a
 * 400), which rolls everything back. The audit event is written in the same transaction.
 */
export async function updateSection<Stored extends object>(
  deps: Deps,
  section: Section<Stored>,
  change: SectionChange,
  apply: (current: Stored) => Stored,
): Promise<Stored> {
  const now = deps.clock.now().toISOString()
  return deps.db.transaction().execute(async (tx) => {
    const write = { key: section.key, updatedAt: now, updatedBy: change.actor.id }
    const row = await lockSettingRow(tx, { ...write, value: JSON.stringify(section.defaults) })
    const next = apply(parseSection(section, row.value))
    await upsertSettingRow(tx, { ...write, value: JSON.stringify(next) })
    await recordAudit(tx, deps.clock, change.ctx, {
      action: change.action,
      actor: change.actor,
      target: { type: 'setting', id: section.key },
      metadata: { fields: [...change.fields].sort(), ...change.metadata },
    })
    return next
  })
}

/** A section switched on must be usable: 400 naming each field it cannot do without, null now. */
export function assertUsableWhenEnabled(
  enabled: boolean,
  required: Record<string, unknown>,
  feature: string,
): void {
  if (!enabled) return
  const details = Object.entries(required)
    .filter(([, value]) => value === null)
    .map(([field]) => ({ field, message: `is required while ${feature} is enabled` }))
  if (details.length > 0) throw new AppError('VALIDATION_FAILED', { details })
}

/** The stored form of a write-only secret: omitted (undefined) keeps it, null clears it. */
export function sealSecret(
  deps: Deps,
  section: Section<object>,
  current: string | null,
  sent: string | null | undefined,
): string | null {
  if (sent === undefined) return current
  if (sent === null) return null
  return encrypt(deps.secrets.encryptionKey, sent, `settings.${section.key}`)
}

/**
 * Opens a stored secret for use. A ciphertext that does not open (ENCRYPTION_KEY changed) makes the
 * feature unusable until an administrator sets the secret again; the operator is told which.
 */
export function openSecret(
  deps: Deps,
  section: Section<object>,
  ciphertext: string,
  what: string,
): string {
  try {
    return decrypt(deps.secrets.encryptionKey, ciphertext, `settings.${section.key}`)
  } catch (error) {
    if (!(error instanceof DecryptionError)) throw error
    deps.logger.error(
      { setting: section.key },
      `the stored ${what} cannot be decrypted with the current ENCRYPTION_KEY`,
    )
    throw new AppError('NOT_CONFIGURED', {
      message: `The stored ${what} cannot be decrypted; an administrator must set it again.`,
    })
  }
}
