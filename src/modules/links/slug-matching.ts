/**
 * How slugs match across the instance: ignoring case always; and, when an administrator
 * chooses so, ignoring "-" and "_" as well (`fold_separators`: go/meeting-notes, go/meeting_notes
 * and go/meetingnotes are one link). Default off, as before.
 *
 * Each link keeps its match key (`slug_key`) under the current rule, so a lookup stays one indexed
 * equality and the per-owner unique index also enforces the folded uniqueness. Switching folding on
 * re-keys every link in the same transaction as the setting — refused with 409 ALREADY_EXISTS,
 * listing them, while some owner has slugs that would collide once folded. Writes read the rule
 * inside their transaction; lookups use a per-process copy refreshed every few seconds (another
 * instance's change reaches this one's lookups within SETTING_CACHE_MS). Remembered chooser choices
 * of slugs with separators are forgotten on a change (their key changed); the chooser asks again.
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { findSettingRow, lockSettingRow, upsertSettingRow } from '../settings/repo.js'
import type { GoLinkSettingsView, UpdateGoLinkSettingsBody } from './schemas.js'
import {
  findFoldConflicts,
  forgetSeparatedPreferences,
  holdSlugRule,
  readFoldSetting,
  rekeyLinks,
} from './slug-matching.repo.js'
import { slugKey } from './url.js'

export const GO_LINKS_SETTING = 'go_links'
const SETTING_CACHE_MS = 5000
const CONFLICTS_SHOWN = 20
const cache = new WeakMap<Deps, { fold: Promise<boolean>; until: number }>()

/**
 * The rule for lookups (cached for a few seconds per process). The cached value is the read itself,
 * so a burst of redirects when the copy expires shares one read instead of queueing one each on the
 * pool; a failed read is not kept.
 */
export async function foldsSeparators(deps: Deps): Promise<boolean> {
  const hit = cache.get(deps)
  if (hit !== undefined && hit.until > Date.now()) return hit.fold
  const entry = {
    fold: readFoldSetting(deps.db, GO_LINKS_SETTING),
    until: Date.now() + SETTING_CACHE_MS,
  }
  cache.set(deps, entry)
  entry.fold.catch(() => {
    if (cache.get(deps) === entry) cache.delete(deps)
  })
  return entry.fold
}

/** The match key of a slug for a lookup. */
export async function lookupKey(deps: Deps, slug: string): Promise<string> {
  return slugKey(slug, await foldsSeparators(deps))
}

/** The match key of a slug being written, by the rule as the writing transaction reads it. */
export async function writeKey<T extends string | null>(ex: Executor, slug: T): Promise<T> {
  if (slug === null) return slug
  await holdSlugRule(ex, 'shared')
  return slugKey(slug, await readFoldSetting(ex, GO_LINKS_SETTING))
}

export async function getGoLinkSettings(deps: Deps): Promise<GoLinkSettingsView> {
  const row = await findSettingRow(deps.db, GO_LINKS_SETTING)
  return {
    fold_separators:
      row !== null &&
      (JSON.parse(row.value) as { fold_separators?: boolean }).fold_separators === true,
    updated_at: row?.updated_at ?? null,
  }
}

export async function updateGoLinkSettings(
  deps: Deps,
  caller: Caller,
  body: UpdateGoLinkSettingsBody,
  ctx: RequestContext,
): Promise<GoLinkSettingsView> {
  const now = deps.clock.now().toISOString()
  await deps.db.transaction().execute(async (tx) => {
    const write = { key: GO_LINKS_SETTING, updatedAt: now, updatedBy: caller.user.id }
    // Locked first: writes of links read the rule (and wait for this change), and two changes queue
    // here.
    await holdSlugRule(tx, 'exclusive')
    const row = await lockSettingRow(tx, {
      ...write,
      value: JSON.stringify({ fold_separators: false }),
    })
    const before = (JSON.parse(row.value) as { fold_separators?: boolean }).fold_separators === true
    if (body.fold_separators && !before) {
      const conflicts = await findFoldConflicts(tx, CONFLICTS_SHOWN)
      if (conflicts.length > 0) {
        throw new AppError('ALREADY_EXISTS', {
          message:
            'Some owners have slugs that differ only by "-" or "_"; rename them before folding.',
          details: conflicts.map((conflict) => ({
            field: 'fold_separators',
            message: `${conflict.organization_id === null ? `user ${conflict.user_id}` : `organization ${conflict.organization_id}`}: ${conflict.slugs.join(', ')}`,
          })),
        })
      }
    }
    if (body.fold_separators !== before) {
      await forgetSeparatedPreferences(tx)
      await rekeyLinks(tx, body.fold_separators)
    }
    await upsertSettingRow(tx, {
      ...write,
      value: JSON.stringify({ fold_separators: body.fold_separators }),
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'settings.go_links',
      actor: caller.user,
      target: { type: 'setting', id: GO_LINKS_SETTING },
      metadata: { fields: ['fold_separators'], fold_separators: body.fold_separators },
    })
  })
  cache.delete(deps)
  return getGoLinkSettings(deps)
}
