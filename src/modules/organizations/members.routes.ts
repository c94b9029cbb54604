import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { MAIL_CAPS_429 } from '../mail/limits.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { createInvitation } from './invitations.service.js'
import { changeMemberRole, listMembers, removeMember } from './members.service.js'
import {
  AddMemberBody,
  ChangeRoleBody,
  CreatedInvitationView,
  MemberPage,
  MemberParams,
  MemberView,
  notAMember,
} from './schemas.js'

const tags = ['organizations']
const OWNER_RULES =
  'FORBIDDEN: your role does not allow this (only an owner grants, changes or removes the owner role)'
const LAST_OWNER = errorResponse('LAST_OWNER: the organization would be left without an owner')

/** /api/organizations/{id}/members */
export function memberRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/:id/members',
      {
        schema: {
          tags,
          operationId: 'listOrganizationMembers',
          summary: 'The members, by name',
          params: IdParams,
          querystring: PageQuery,
          response: { 200: MemberPage, 404: notAMember() },
        },
      },
      async (request) => listMembers(deps, callerOf(request), request.params.id, request.query),
    )

    app.post(
      '/:id/members',
      {
        // Shares nothing with POST …/invitations but its rule: each invitation may send a mail.
        config: { rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'addOrganizationMember',
          summary:
            'Invite a person by email to become a member (owner, admin; only an owner invites an owner)',
          description:
            'Nobody joins without consent: the answer is the same whether or not an account has the address, and the person accepts in ' +
            'GET /api/invitations or by the link — mailed when SMTP works, and in the answer for the inviter to pass on.',
          params: IdParams,
          body: AddMemberBody,
          response: {
            202: CreatedInvitationView,
            403: errorResponse(OWNER_RULES),
            404: notAMember(),
            409: errorResponse('ALREADY_EXISTS: the address belongs to a member (details: email)'),
            429: errorResponse(MAIL_CAPS_429),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(202)
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

    app.patch(
      '/:id/members/:user_id',
      {
        schema: {
          tags,
          operationId: 'changeOrganizationMemberRole',
          summary: "Change a member's role (owner, admin; owners only where an owner is involved)",
          params: MemberParams,
          body: ChangeRoleBody,
          response: {
            200: MemberView,
            403: errorResponse(OWNER_RULES),
            404: notAMember('no such member'),
            409: LAST_OWNER,
          },
        },
      },
      async (request) =>
        changeMemberRole(
          deps,
          callerOf(request),
          request.params.id,
          request.params.user_id,
          request.body.role,
          contextOf(request),
        ),
    )

    app.delete(
      '/:id/members/:user_id',
      {
        schema: {
          tags,
          operationId: 'removeOrganizationMember',
          summary: 'Remove a member (owner, admin), or leave: any member may remove themselves',
          params: MemberParams,
          response: {
            204: NoContent,
            403: errorResponse(OWNER_RULES),
            404: notAMember('no such member'),
            409: LAST_OWNER,
          },
        },
      },
      async (request, reply) => {
        await removeMember(
          deps,
          callerOf(request),
          request.params.id,
          request.params.user_id,
          contextOf(request),
        )
        return reply.code(204).send(null)
      },
    )
  }
}
