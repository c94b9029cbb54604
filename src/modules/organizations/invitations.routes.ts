import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { MAIL_CAPS_429 } from '../mail/limits.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp, perUser } from '../../plugins/rate-limit.js'
import {
  acceptInvitation,
  acceptMyInvitation,
  createInvitation,
  declineMyInvitation,
  listInvitations,
  listMyInvitations,
  resendInvitation,
  revokeInvitation,
} from './invitations.service.js'
import { previewInvitation } from './sign-up.js'
import {
  AcceptInvitationBody,
  CreatedInvitationView,
  CreateInvitationBody,
  InvitationPage,
  InvitationParams,
  InvitationPreviewView,
  ResentInvitationView,
  MyInvitationParams,
  notAMember,
  OrganizationView,
  ReceivedInvitationPage,
} from './schemas.js'

const tags = ['organizations']
const ROLE_TOO_LOW = errorResponse(
  'FORBIDDEN: your role does not allow this (only an owner invites, or revokes an invitation of, an owner)',
)

/** /api/organizations/{id}/invitations */
export function invitationRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/:id/invitations',
      {
        config: { rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'createInvitation',
          summary:
            'Invite an address with a role: a single-use link, valid 7 days, in the answer and by mail when SMTP works (owner, admin)',
          description:
            'Succeeds with or without outgoing mail: `link` is the link the mail carries, for the inviter to pass on; `mail` says ' +
            'whether it was mailed. A pending invitation to the same address is replaced (its link stops working): `replaced` names it and its role.',
          params: IdParams,
          body: CreateInvitationBody,
          response: {
            201: CreatedInvitationView,
            403: ROLE_TOO_LOW,
            404: notAMember(),
            409: errorResponse('ALREADY_EXISTS: the address belongs to a member (details: email)'),
            429: errorResponse(MAIL_CAPS_429),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await createInvitation(
              deps,
              callerOf(request),
              request.params.id,
              request.body,
              contextOf(request),
            ),
          ),
    )

    app.get(
      '/:id/invitations',
      {
        schema: {
          tags,
          operationId: 'listInvitations',
          summary: 'Pending invitations with their links, newest first (owner, admin)',
          params: IdParams,
          querystring: PageQuery,
          response: { 200: InvitationPage, 403: ROLE_TOO_LOW, 404: notAMember() },
        },
      },
      async (request) => listInvitations(deps, callerOf(request), request.params.id, request.query),
    )

    app.post(
      '/:id/invitations/:invitation_id/resend',
      {
        // The same budget as sending one: each resend mails.
        config: { rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'resendInvitation',
          summary:
            'A new link for a pending invitation, valid 7 days, replacing the earlier one; mailed when SMTP works (owner, admin)',
          params: InvitationParams,
          response: {
            200: ResentInvitationView,
            403: ROLE_TOO_LOW,
            404: notAMember('no such pending invitation'),
            429: errorResponse(MAIL_CAPS_429),
          },
        },
      },
      async (request) =>
        resendInvitation(
          deps,
          callerOf(request),
          request.params.id,
          request.params.invitation_id,
          contextOf(request),
        ),
    )

    app.delete(
      '/:id/invitations/:invitation_id',
      {
        schema: {
          tags,
          operationId: 'revokeInvitation',
          summary: 'Revoke a pending invitation: its link stops working (owner, admin)',
          params: InvitationParams,
          response: {
            204: NoContent,
            403: ROLE_TOO_LOW,
            404: notAMember('no such pending invitation'),
          },
        },
      },
      async (request, reply) => {
        await revokeInvitation(
          deps,
          callerOf(request),
          request.params.id,
          request.params.invitation_id,
          contextOf(request),
        )
        return reply.code(204).send(null)
      },
    )
  }
}

/**
 * /api/invitations — for the signed-in invitee: their pending invitations, accepted or declined.
 */
export function invitationAcceptRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listMyInvitations',
          summary: 'Your pending invitations (addressed to your email), newest first',
          querystring: PageQuery,
          response: { 200: ReceivedInvitationPage },
        },
      },
      async (request) => listMyInvitations(deps, callerOf(request), request.query),
    )

    app.post(
      '/:invitation_id/accept',
      {
        schema: {
          tags,
          operationId: 'acceptMyInvitation',
          summary: 'Accept one of your pending invitations; you join with the invited role',
          params: MyInvitationParams,
          response: {
            200: OrganizationView,
            404: errorResponse('NOT_FOUND: no such pending invitation to your email'),
            409: errorResponse('ALREADY_EXISTS: you are already a member'),
          },
        },
      },
      async (request) =>
        acceptMyInvitation(
          deps,
          callerOf(request),
          request.params.invitation_id,
          contextOf(request),
        ),
    )

    app.post(
      '/:invitation_id/decline',
      {
        schema: {
          tags,
          operationId: 'declineMyInvitation',
          summary: 'Decline one of your pending invitations: its link stops working',
          params: MyInvitationParams,
          response: {
            204: NoContent,
            404: errorResponse('NOT_FOUND: no such pending invitation to your email'),
          },
        },
      },
      async (request, reply) => {
        await declineMyInvitation(
          deps,
          callerOf(request),
          request.params.invitation_id,
          contextOf(request),
        )
        return reply.code(204).send(null)
      },
    )

    app.post(
      '/preview',
      {
        config: { auth: 'public', rateLimit: perIp(30, 15) },
        schema: {
          tags,
          operationId: 'previewInvitation',
          summary:
            'Who invites the link holder where, with which role, and whether they can sign up from it',
          body: AcceptInvitationBody,
          response: {
            200: InvitationPreviewView,
            400: errorResponse(
              'VALIDATION_FAILED: the token is invalid, expired, revoked or already used',
            ),
            429: errorResponse('RATE_LIMITED: 30 per 15 minutes per IP'),
          },
        },
      },
      async (request) => previewInvitation(deps, request.body.token),
    )

    app.post(
      '/accept',
      {
        schema: {
          tags,
          operationId: 'acceptInvitation',
          summary:
            'Accept an invitation with the token from its link; you join with the invited role',
          body: AcceptInvitationBody,
          response: {
            200: OrganizationView,
            400: errorResponse(
              'VALIDATION_FAILED: the token is invalid, expired, revoked or already used',
            ),
            403: errorResponse('FORBIDDEN: the invitation was sent to another email address'),
            409: errorResponse('ALREADY_EXISTS: you are already a member'),
          },
        },
      },
      async (request) =>
        acceptInvitation(deps, callerOf(request), request.body.token, contextOf(request)),
    )
  }
}
