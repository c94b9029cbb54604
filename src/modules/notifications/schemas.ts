import { Type, type Static } from '@sinclair/typebox'
import { Body } from '../../lib/schema-types.js'

export const NotificationPreferencesView = Type.Object(
  {
    new_sign_in: Type.Boolean({
      description:
        'Mail me when my account is signed in to from a browser or system it has not used before (the only security mail that can be switched off)',
    }),
  },
  { title: 'NotificationPreferences', additionalProperties: false },
)
export type NotificationPreferencesView = Static<typeof NotificationPreferencesView>

export const UpdateNotificationPreferencesBody = Body(
  { new_sign_in: Type.Boolean() },
  { minProperties: 1 },
)
export type UpdateNotificationPreferencesBody = Static<typeof UpdateNotificationPreferencesBody>
