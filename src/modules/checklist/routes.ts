/** /api/admin/checklist: the first-run checklist, administrators only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { getChecklist, updateChecklist } from './service.js'
import { ChecklistView, UpdateChecklistBody } from './schemas.js'

const tags = ['admin: first-run checklist']
const FORBIDDEN = errorResponse('FORBIDDEN: administrators only')

export function checklistRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getChecklist',
          summary:
            "The first-run checklist: each step's state read from the instance now, and whether it was dismissed",
          response: { 200: ChecklistView, 403: FORBIDDEN },
        },
      },
      async (request) => getChecklist(deps, callerOf(request)),
    )

    app.put(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'updateChecklist',
          summary:
            'Hide the first-run checklist for every administrator (dismissed: true), or show it again',
          body: UpdateChecklistBody,
          response: { 200: ChecklistView, 403: FORBIDDEN },
        },
      },
      async (request) => updateChecklist(deps, callerOf(request), request.body, contextOf(request)),
    )
  }
}
