import { Type, type Static } from '@sinclair/typebox'
import { Body } from '../../lib/schema-types.js'

export const CHECKLIST_ITEMS = [
  'two_factor',
  'outgoing_mail',
  'identity_provider',
  'require_two_factor',
  'invite_team',
] as const
export type ChecklistItemKey = (typeof CHECKLIST_ITEMS)[number]

export const ChecklistItem = Type.Object({
  key: Type.Unsafe<ChecklistItemKey>({
    type: 'string',
    enum: [...CHECKLIST_ITEMS],
    description:
      'two_factor: you have a second factor; outgoing_mail: SMTP is on and a test mail was delivered since its last change; ' +
      'identity_provider: one is configured; require_two_factor: the two-factor policy is admins or everyone; ' +
      'invite_team: an invitation was made or another account exists',
  }),
  done: Type.Boolean(),
  optional: Type.Boolean({ description: 'An optional step: the checklist is complete without it' }),
})

export const ChecklistView = Type.Object({
  items: Type.Array(ChecklistItem),
  complete: Type.Boolean({ description: 'Every step that is not optional is done' }),
  dismissed: Type.Boolean({ description: 'An administrator hid the checklist' }),
})
export type ChecklistView = Static<typeof ChecklistView>

export const UpdateChecklistBody = Body({ dismissed: Type.Boolean() })
export type UpdateChecklistBody = Static<typeof UpdateChecklistBody>
