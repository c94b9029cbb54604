import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import {
  AddTeamMemberBody,
  CreateTeamBody,
  TeamMemberPage,
  TeamMemberParams,
  TeamMemberView,
  TeamPage,
  TeamView,
  UpdateTeamBody,
  TeamsQuery,
} from './teams.schemas.js'
import {
  addTeamMember,
  createTeam,
  deleteTeam,
  getTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  updateTeam,
} from './teams.service.js'

const tags = ['administration']
const admin = { auth: 'admin' as const }
const NO_SUCH_TEAM = errorResponse('NOT_FOUND: no such team')
const NAME_TAKEN = errorResponse(
  'ALREADY_EXISTS: a team has this name, ignoring case (details: name)',
)

/** /api/admin/teams — every route needs an administrator (docs/API.md#who-may-do-what). */
export function adminTeamRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'listTeams',
          summary: "Teams, by name; with member_id, that user's teams",
          querystring: TeamsQuery,
          response: { 200: TeamPage },
        },
      },
      async (request) => listTeams(deps, request.query),
    )

    app.post(
      '',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'createTeam',
          summary: 'Create a team',
          body: CreateTeamBody,
          response: { 201: TeamView, 409: NAME_TAKEN },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await createTeam(deps, callerOf(request), request.body, contextOf(request))),
    )

    app.get(
      '/:id',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'getTeam',
          summary: 'One team',
          params: IdParams,
          response: { 200: TeamView, 404: NO_SUCH_TEAM },
        },
      },
      async (request) => getTeam(deps, request.params.id),
    )

    app.patch(
      '/:id',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'updateTeam',
          summary: 'Rename a team or change its description (null clears it)',
          params: IdParams,
          body: UpdateTeamBody,
          response: { 200: TeamView, 404: NO_SUCH_TEAM, 409: NAME_TAKEN },
        },
      },
      async (request) =>
        updateTeam(deps, callerOf(request), request.params.id, request.body, contextOf(request)),
    )

    app.delete(
      '/:id',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'deleteTeam',
          summary: 'Delete a team (its users stay)',
          params: IdParams,
          response: { 204: NoContent, 404: NO_SUCH_TEAM },
        },
      },
      async (request, reply) => {
        await deleteTeam(deps, callerOf(request), request.params.id, contextOf(request))
        return reply.code(204).send(null)
      },
    )

    app.get(
      '/:id/members',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'listTeamMembers',
          summary: 'The members of a team, by name',
          params: IdParams,
          querystring: PageQuery,
          response: { 200: TeamMemberPage, 404: NO_SUCH_TEAM },
        },
      },
      async (request) => listTeamMembers(deps, request.params.id, request.query),
    )

    app.post(
      '/:id/members',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'addTeamMember',
          summary: 'Add a user to a team, by user_id or by email (exactly one)',
          params: IdParams,
          body: AddTeamMemberBody,
          response: {
            201: TeamMemberView,
            404: errorResponse('NOT_FOUND: no such team, or no such user'),
            409: errorResponse('ALREADY_EXISTS: the user is already a member (details: user_id)'),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await addTeamMember(
              deps,
              callerOf(request),
              request.params.id,
              request.body,
              contextOf(request),
            ),
          ),
    )

    app.delete(
      '/:id/members/:user_id',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'removeTeamMember',
          summary: 'Remove a user from a team',
          params: TeamMemberParams,
          response: {
            204: NoContent,
            404: errorResponse('NOT_FOUND: no such team, or the user is not a member'),
          },
        },
      },
      async (request, reply) => {
        await removeTeamMember(
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
