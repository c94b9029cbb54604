import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { NotificationPreferencesView, UpdateNotificationPreferencesBody } from './schemas.js'
import { getNotificationPreferences, updateNotificationPreferences } from './service.js'

const tags = ['current user']

/** /api/users/me/notifications. */
export function notificationPreferenceRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'getNotificationPreferences',
          summary:
            'Which security mails you receive (only the new sign-in mail can be switched off)',
          response: { 200: NotificationPreferencesView },
        },
      },
      async (request) => getNotificationPreferences(deps, callerOf(request)),
    )

    app.put(
      '',
      {
        schema: {
          tags,
          operationId: 'updateNotificationPreferences',
          summary: 'Switch the new sign-in mail on or off',
          body: UpdateNotificationPreferencesBody,
          response: { 200: NotificationPreferencesView },
        },
      },
      async (request) =>
        updateNotificationPreferences(deps, callerOf(request), request.body, contextOf(request)),
    )
  }
}
