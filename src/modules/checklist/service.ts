/**
 * The first-run checklist (section 4): what an administrator sets up in a team's first
 * week — their own second factor, outgoing mail (with a delivered test), an identity provider
 * (optional), a two-factor requirement (optional), the team invited. Each step's state is read from
 * the real state of the instance on every request, never stored: undoing a step shows it undone.
 * Only the dismissal is stored (a typed settings section, `first_run_checklist`, audited as
 * `settings.first_run_checklist`); it hides the checklist for every administrator of the instance.
 */
import type { Deps } from '../../deps.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { isMailConfigured } from '../mail/service.js'
import { isMfaEnabled } from '../mfa/service.js'
import { readSection, updateSection, type Section } from '../settings/sections.js'
import { getTwoFactorPolicy } from '../settings/two-factor-policy.js'
import { hasIdentityProvider, hasInvitedAnyone, latestAuditEvent } from './repo.js'
import type { ChecklistItemKey, ChecklistView, UpdateChecklistBody } from './schemas.js'

interface StoredChecklist {
  dismissed: boolean
}

export const CHECKLIST_SECTION: Section<StoredChecklist> = {
  key: 'first_run_checklist',
  defaults: { dismissed: false },
}

const OPTIONAL: ReadonlySet<ChecklistItemKey> = new Set(['identity_provider', 'require_two_factor'])

/**
 * Outgoing mail counts as set up when SMTP is configured and the newest test mail was delivered
 * after the newest change of the settings: a change (another host, say) asks for a new test.
 */
async function isMailTested(deps: Deps): Promise<boolean> {
  if (!(await isMailConfigured(deps))) return false
  const test = await latestAuditEvent(deps.db, 'smtp.test')
  if (test === null || (JSON.parse(test.metadata) as { delivered?: unknown }).delivered !== true)
    return false
  const update = await latestAuditEvent(deps.db, 'smtp.update')
  return update === null || Date.parse(test.at) >= Date.parse(update.at)
}

export async function getChecklist(deps: Deps, caller: Caller): Promise<ChecklistView> {
  const [twoFactor, mail, provider, policy, invited, { stored }] = await Promise.all([
    isMfaEnabled(deps.db, caller.user.id),
    isMailTested(deps),
    hasIdentityProvider(deps.db),
    getTwoFactorPolicy(deps),
    hasInvitedAnyone(deps.db),
    readSection(deps, CHECKLIST_SECTION),
  ])
  const state: Record<ChecklistItemKey, boolean> = {
    two_factor: twoFactor,
    outgoing_mail: mail,
    identity_provider: provider,
    require_two_factor: policy.required !== 'off',
    invite_team: invited,
  }
  const items = (Object.keys(state) as ChecklistItemKey[]).map((key) => ({
    key,
    done: state[key],
    optional: OPTIONAL.has(key),
  }))
  return {
    items,
    complete: items.every((item) => item.done || item.optional),
    dismissed: stored.dismissed,
  }
}

export async function updateChecklist(
  deps: Deps,
  caller: Caller,
  body: UpdateChecklistBody,
  ctx: RequestContext,
): Promise<ChecklistView> {
  await updateSection(
    deps,
    CHECKLIST_SECTION,
    { actor: caller.user, ctx, action: 'settings.first_run_checklist', fields: ['dismissed'] },
    () => ({
      dismissed: body.dismissed,
    }),
  )
  return getChecklist(deps, caller)
}
