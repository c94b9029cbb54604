import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { invitationRoutes } from './invitations.routes.js'
import { memberRoutes } from './members.routes.js'
import {
  CreateOrganizationBody,
  notAMember,
  OrganizationPage,
  OrganizationView,
  UpdateOrganizationBody,
} from './schemas.js'
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  updateOrganization,
} from './service.js'

const tags = ['organizations']
const ROLE_TOO_LOW = 'FORBIDDEN: your role in the organization does not allow this'

/** /api/organizations — with its members and invitations. */
export function organizationRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listOrganizations',
          summary: 'Your organizations, by name, with your role',
          querystring: PageQuery,
          response: { 200: OrganizationPage },
        },
      },
      async (request) => listOrganizations(deps, callerOf(request), request.query),
    )

    app.post(
      '',
      {
        schema: {
          tags,
          operationId: 'createOrganization',
          summary: 'Create an organization; you become its owner',
          body: CreateOrganizationBody,
          response: {
            201: OrganizationView,
            409: errorResponse('ALREADY_EXISTS: the slug is taken (details: slug)'),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await createOrganization(deps, callerOf(request), request.body, contextOf(request)),
          ),
    )

    app.get(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'getOrganization',
          summary: 'One of your organizations',
          params: IdParams,
          response: { 200: OrganizationView, 404: notAMember() },
        },
      },
      async (request) => getOrganization(deps, callerOf(request), request.params.id),
    )

    app.patch(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'updateOrganization',
          summary: 'Rename the organization or change its slug (owner, admin)',
          params: IdParams,
          body: UpdateOrganizationBody,
          response: {
            200: OrganizationView,
            403: errorResponse(ROLE_TOO_LOW),
            404: notAMember(),
            409: errorResponse('ALREADY_EXISTS: the slug is taken (details: slug)'),
          },
        },
      },
      async (request) =>
        updateOrganization(
          deps,
          callerOf(request),
          request.params.id,
          request.body,
          contextOf(request),
        ),
    )

    app.delete(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'deleteOrganization',
          summary: 'Delete the organization with its memberships and invitations (owner)',
          params: IdParams,
          response: { 204: NoContent, 403: errorResponse(ROLE_TOO_LOW), 404: notAMember() },
        },
      },
      async (request, reply) => {
        await deleteOrganization(deps, callerOf(request), request.params.id, contextOf(request))
        return reply.code(204).send(null)
      },
    )

    await app.register(memberRoutes(deps))
    await app.register(invitationRoutes(deps))
  }
}
