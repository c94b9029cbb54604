/**
 * /api/admin/settings (docs/API.md#settings), administrators only. The typed sections are static
 * routes (`/smtp`, `/ai`), which the router always prefers to the parametric `/:key`: GET and PUT
 * of `smtp` or `ai` reach the sections, never a generic key. DELETE has no typed route, so it
 * reaches the generic handler, which refuses the reserved key.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { getAiSettings, listAiModels, updateAiSettings } from './ai.service.js'
import {
  AiModelPage,
  AiView,
  PutSettingBody,
  Setting,
  SettingKeyParams,
  SettingPage,
  SettingWriteParams,
  SmtpTestBody,
  SmtpTestResult,
  SmtpView,
  UpdateAiBody,
  UpdateSmtpBody,
} from './schemas.js'
import { deleteSetting, getSetting, listSettings, putSetting } from './service.js'
import { getSmtpSettings, sendSmtpTest, updateSmtpSettings } from './smtp.service.js'

const admin = { auth: 'admin' } as const

export function settingsRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // --- SMTP ---------------------------------------------------------------------------------
    const smtp = ['settings: SMTP']

    app.get(
      '/smtp',
      {
        config: admin,
        schema: {
          tags: smtp,
          operationId: 'getSmtpSettings',
          summary: 'The SMTP settings, sanitized (defaults when never configured)',
          response: { 200: SmtpView },
        },
      },
      async () => getSmtpSettings(deps),
    )

    app.put(
      '/smtp',
      {
        config: admin,
        schema: {
          tags: smtp,
          operationId: 'updateSmtpSettings',
          summary: 'Change SMTP settings (partial); password omitted: kept, null: cleared',
          description:
            "A change of host, port or from_address needs an interactive session (403 SESSION_REQUIRED for API tokens) and the acting administrator's current_password (when they have one) and code (when their MFA is on): mail carries reset links.",
          body: UpdateSmtpBody,
          response: {
            200: SmtpView,
            400: errorResponse(
              "VALIDATION_FAILED, also when enabled without host or from_address; PASSWORD_REQUIRED, INVALID_PASSWORD, INVALID_CODE: the administrator's own proof",
            ),
            403: errorResponse(
              'FORBIDDEN: administrators only; SESSION_REQUIRED: an API token, for a change of host, port or from_address',
            ),
          },
        },
      },
      async (request) =>
        updateSmtpSettings(deps, callerOf(request), request.body, contextOf(request)),
    )

    app.post(
      '/smtp/test',
      {
        config: { ...admin, rateLimit: perUser(10, 15) },
        schema: {
          tags: smtp,
          operationId: 'sendSmtpTestMail',
          summary:
            'Send a test mail through the configured SMTP server (to you unless `to` is given)',
          body: SmtpTestBody,
          response: {
            200: SmtpTestResult,
            429: errorResponse('RATE_LIMITED: 10 test mails per 15 minutes per administrator'),
            502: errorResponse(
              'UPSTREAM_FAILED: the SMTP server failed; `message` has its reply (never credentials)',
            ),
            503: errorResponse('NOT_CONFIGURED: SMTP is not enabled with a host and sender'),
          },
        },
      },
      async (request) => sendSmtpTest(deps, callerOf(request), request.body, contextOf(request)),
    )

    // --- AI -----------------------------------------------------------------------------------
    const ai = ['settings: AI']

    app.get(
      '/ai',
      {
        config: admin,
        schema: {
          tags: ai,
          operationId: 'getAiSettings',
          summary: 'The AI settings (the API key is write-only)',
          response: { 200: AiView },
        },
      },
      async () => getAiSettings(deps),
    )

    app.put(
      '/ai',
      {
        config: admin,
        schema: {
          tags: ai,
          operationId: 'updateAiSettings',
          summary: 'Change AI settings (partial); api_key omitted: kept, null: cleared',
          body: UpdateAiBody,
          response: {
            200: AiView,
            400: errorResponse('VALIDATION_FAILED, also when enabled without api_key or model'),
          },
        },
      },
      async (request) =>
        updateAiSettings(deps, callerOf(request), request.body, contextOf(request)),
    )

    app.get(
      '/ai/models',
      {
        config: admin,
        schema: {
          tags: ai,
          operationId: 'listAiModels',
          summary: "The provider's models (GET {base_url}/models), by id, cached for 5 minutes",
          querystring: PageQuery,
          response: {
            200: AiModelPage,
            502: errorResponse(
              'UPSTREAM_FAILED: the provider failed, refused the key or timed out',
            ),
            503: errorResponse('NOT_CONFIGURED: no API key is set'),
          },
        },
      },
      async (request) => listAiModels(deps, request.query),
    )

    // --- Generic keys -------------------------------------------------------------------------
    const generic = ['settings']

    app.get(
      '',
      {
        config: admin,
        schema: {
          tags: generic,
          operationId: 'listSettings',
          summary:
            'Every setting, by key; the typed sections (smtp, ai) appear sanitized once configured',
          querystring: PageQuery,
          response: { 200: SettingPage },
        },
      },
      async (request) => listSettings(deps, request.query),
    )

    app.get(
      '/:key',
      {
        config: admin,
        schema: {
          tags: generic,
          operationId: 'getSetting',
          summary: 'One setting',
          params: SettingKeyParams,
          response: { 200: Setting, 404: errorResponse('NOT_FOUND: no setting with this key') },
        },
      },
      async (request) => getSetting(deps, request.params.key),
    )

    app.put(
      '/:key',
      {
        config: admin,
        schema: {
          tags: generic,
          operationId: 'putSetting',
          summary: 'Create or replace a setting',
          params: SettingWriteParams,
          body: PutSettingBody,
          response: {
            200: Setting,
            400: errorResponse(
              'VALIDATION_FAILED: key pattern or reserved key (smtp, ai, billing and their sub-keys); value over 16 KiB',
            ),
          },
        },
      },
      async (request) =>
        putSetting(
          deps,
          callerOf(request).user,
          request.params.key,
          request.body.value,
          contextOf(request),
        ),
    )

    app.delete(
      '/:key',
      {
        config: admin,
        schema: {
          tags: generic,
          operationId: 'deleteSetting',
          summary: 'Delete a setting',
          params: SettingKeyParams,
          response: {
            204: NoContent,
            400: errorResponse(
              'VALIDATION_FAILED: a reserved key (smtp, ai, billing and their sub-keys)',
            ),
            404: errorResponse('NOT_FOUND: no setting with this key'),
          },
        },
      },
      async (request, reply) => {
        await deleteSetting(deps, callerOf(request).user, request.params.key, contextOf(request))
        return reply.code(204).send(null)
      },
    )
  }
}
