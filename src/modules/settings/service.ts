/**
 * Generic instance settings (docs/API.md#settings): JSON values under keys, listed in key order.
 * The typed sections' keys are reserved: refused here for writing and deleting, shown sanitized.
 */
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import {
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  toPage,
  type Page,
  type PageQuery,
} from '../../lib/pagination.js'
import { recordAudit, type Actor } from '../audit/service.js'
import type { RequestContext } from '../../identity/caller.js'
import {
  deleteSettingRow,
  findSettingRow,
  listSettingRows,
  upsertSettingRow,
  type SettingRow,
} from './repo.js'
import type { Setting } from './schemas.js'
import { isReservedKey, sanitizedSection } from './sections.js'

export const MAX_VALUE_BYTES = 16 * 1024
/** Deeper values are refused: serialising them recursively could exhaust the stack. */
export const MAX_VALUE_DEPTH = 64

/** The wire form of a row, or null when a reserved row has no sanitized form (never shown). */
function toSetting(row: SettingRow): Setting | null {
  if (!isReservedKey(row.key))
    return { key: row.key, value: JSON.parse(row.value), updated_at: row.updated_at }
  const value = sanitizedSection(row.key, row.value)
  return value === undefined ? null : { key: row.key, value, updated_at: row.updated_at }
}

function depthOf(value: unknown): number {
  let deepest = 0
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current !== 'object' || current === null) continue
    if (depth > MAX_VALUE_DEPTH) return depth
    deepest = Math.max(deepest, depth)
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
  return deepest
}

/** The value as stored: JSON text within the depth and size limits (400 on `value` otherwise). */
function serializeValue(value: unknown): string {
  if (depthOf(value) > MAX_VALUE_DEPTH)
    throw invalidField('value', `must not be nested more than ${MAX_VALUE_DEPTH} levels deep`)
  const text = JSON.stringify(value)
  if (Buffer.byteLength(text, 'utf8') > MAX_VALUE_BYTES)
    throw invalidField('value', 'must be at most 16 KiB when serialized as JSON')
  return text
}

/**
 * A generic key whose name says it holds a secret (`…secret…`, `…password…`, `…token…`,
 * `…api_key…`, `…private…`, `…credential…`): its values never enter the audit log.
 */
const SECRET_KEY = /secret|passw|token|api[_.-]?key|private|credential/i

/**
 * What a change of a generic setting records: the old and new value (null when absent), so the
 * audit log answers "who changed this from what to what"; for a secret-looking key only that the
 * value changed.
 */
function auditedValues(key: string, before: string | null, after: string | null) {
  if (SECRET_KEY.test(key)) return { value_redacted: true }
  return { old_value: auditedValue(before), new_value: auditedValue(after) }
}

/**
 * The stored value as the audit event holds it. One with a lone surrogate (a value may hold one)
 * is kept as its JSON text, where it is escaped: the audit leaf is UTF-8, which cannot carry it.
 */
function auditedValue(text: string | null): unknown {
  if (text === null) return null
  const value: unknown = JSON.parse(text)
  return wellFormed(value) ? value : text
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return !LONE_SURROGATE.test(value)
  if (typeof value !== 'object' || value === null) return true
  return Object.entries(value).every(([k, v]) => !LONE_SURROGATE.test(k) && wellFormed(v))
}

function assertWritableKey(key: string): void {
  if (isReservedKey(key)) {
    throw invalidField(
      'key',
      'belongs to a typed section (smtp, ai, billing); use its own endpoint, e.g. /api/admin/settings/smtp',
    )
  }
}

export async function listSettings(deps: Deps, query: PageQuery): Promise<Page<Setting>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  // Keys are unique, so the key alone is the cursor; the second part is unused.
  const after = decodeCursor(query.cursor)
  const rows = await listSettingRows(deps.db, { limit, afterKey: after?.[0] ?? null })
  const page = toPage(rows, limit, toSetting, (row) => [row.key, ''])
  return {
    items: page.items.filter((item): item is Setting => item !== null),
    next_cursor: page.next_cursor,
  }
}

export async function getSetting(deps: Deps, key: string): Promise<Setting> {
  const row = await findSettingRow(deps.db, key)
  const setting = row === null ? null : toSetting(row)
  if (setting === null) throw new AppError('NOT_FOUND', { message: 'No setting with this key.' })
  return setting
}

export async function putSetting(
  deps: Deps,
  actor: Actor,
  key: string,
  value: unknown,
  ctx: RequestContext,
): Promise<Setting> {
  assertWritableKey(key)
  const text = serializeValue(value)
  return deps.db.transaction().execute(async (tx) => {
    const before = await findSettingRow(tx, key)
    const row = await upsertSettingRow(tx, {
      key,
      value: text,
      updatedAt: deps.clock.now().toISOString(),
      updatedBy: actor.id,
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'settings.update',
      actor,
      target: { type: 'setting', id: key },
      metadata: auditedValues(key, before?.value ?? null, text),
    })
    return { key: row.key, value, updated_at: row.updated_at }
  })
}

export async function deleteSetting(
  deps: Deps,
  actor: Actor,
  key: string,
  ctx: RequestContext,
): Promise<void> {
  assertWritableKey(key)
  await deps.db.transaction().execute(async (tx) => {
    const before = await findSettingRow(tx, key)
    if (before === null || !(await deleteSettingRow(tx, key)))
      throw new AppError('NOT_FOUND', { message: 'No setting with this key.' })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'settings.delete',
      actor,
      target: { type: 'setting', id: key },
      metadata: auditedValues(key, before.value, null),
    })
  })
}
