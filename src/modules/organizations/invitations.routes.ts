import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../auth/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from './invitations.service.js'
import { AcceptInvitationBody, CreateInvitationBody, InvitationPage, InvitationParams, InvitationView, notAMember, OrganizationView } from './schemas.js'

const tags = ['organizations']
const ROLE_TOO_LOW = errorResponse('FORBIDDEN: your role does not allow this (only an owner invites, or revokes an invitation of, an owner)')

/** /api/organizations/{id}/invitations */
export function invitationRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/:id/invitations',
      {
        config: { rateLimit: perUser(10, 15) },
        schema: {
          tags,
          summary: 'Invite an address with a role; the invitee gets a single-use link by mail, valid 7 days (owner, admin)',
          params: IdParams,
          body: CreateInvitationBody,
          response: {
            201: InvitationView,
            403: ROLE_TOO_LOW,
            404: notAMember(),
            409: errorResponse('ALREADY_EXISTS: the address belongs to a member (details: email)'),
            429: errorResponse('RATE_LIMITED: 10 invitations per 15 minutes'),
            502: errorResponse('UPSTREAM_FAILED: the mail could not be delivered; nothing is left pending'),
            503: errorResponse('NOT_CONFIGURED: outgoing mail (SMTP) is not configured; nothing is stored'),
          },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await createInvitation(deps, callerOf(request), request.params.id, request.body, contextOf(request))),
    )

    app.get(
      '/:id/invitations',
      {
        schema: {
          tags,
          summary: 'Pending invitations, newest first (owner, admin)',
          params: IdParams,
          querystring: PageQuery,
          response: { 200: InvitationPage, 403: ROLE_TOO_LOW, 404: notAMember() },
        },
      },
      async (request) => listInvitations(deps, callerOf(request), request.params.id, request.query),
    )

    app.delete(
      '/:id/invitations/:invitation_id',
      {
        schema: {
          tags,
          summary: 'Revoke a pending invitation: its link stops working (owner, admin)',
          params: InvitationParams,
          response: { 204: NoContent, 403: ROLE_TOO_LOW, 404: notAMember('no such pending invitation') },
        },
      },
      async (request, reply) => {
        await revokeInvitation(deps, callerOf(request), request.params.id, request.params.invitation_id, contextOf(request))
        return reply.code(204).send(null)
      },
    )
  }
}

/** /api/invitations/accept — for the signed-in invitee. */
export function invitationAcceptRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/accept',
      {
        schema: {
          tags,
          summary: 'Accept an invitation with the token from its link; you join with the invited role',
          body: AcceptInvitationBody,
          response: {
            200: OrganizationView,
            400: errorResponse('VALIDATION_FAILED: the token is invalid, expired, revoked or already used'),
            403: errorResponse('FORBIDDEN: the invitation was sent to another email address'),
            409: errorResponse('ALREADY_EXISTS: you are already a member'),
          },
        },
      },
      async (request) => acceptInvitation(deps, callerOf(request), request.body.token, contextOf(request)),
    )
  }
}
