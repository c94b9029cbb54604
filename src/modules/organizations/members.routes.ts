import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../auth/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { addMember, changeMemberRole, listMembers, removeMember } from './members.service.js'
import { AddMemberBody, ChangeRoleBody, MemberPage, MemberParams, MemberView, notAMember } from './schemas.js'

const tags = ['organizations']
const OWNER_RULES = 'FORBIDDEN: your role does not allow this (only an owner grants, changes or removes the owner role)'
const LAST_OWNER = errorResponse('LAST_OWNER: the organization would be left without an owner')

/** /api/organizations/{id}/members */
export function memberRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/:id/members',
      {
        schema: {
          tags,
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
        schema: {
          tags,
          summary: 'Add an existing user by email (owner, admin; only an owner adds an owner)',
          params: IdParams,
          body: AddMemberBody,
          response: {
            201: MemberView,
            403: errorResponse(OWNER_RULES),
            404: notAMember('no user has this email'),
            409: errorResponse('ALREADY_EXISTS: the user is already a member (details: email)'),
          },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await addMember(deps, callerOf(request), request.params.id, request.body, contextOf(request))),
    )

    app.patch(
      '/:id/members/:user_id',
      {
        schema: {
          tags,
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
        changeMemberRole(deps, callerOf(request), request.params.id, request.params.user_id, request.body.role, contextOf(request)),
    )

    app.delete(
      '/:id/members/:user_id',
      {
        schema: {
          tags,
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
        await removeMember(deps, callerOf(request), request.params.id, request.params.user_id, contextOf(request))
        return reply.code(204).send(null)
      },
    )
  }
}
