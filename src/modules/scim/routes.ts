/**
 * SCIM 2.0 provisioning (RFC 7643 resources, RFC 7644 protocol) under /scim/v2, for identity
 * providers such as Okta and Microsoft Entra ID. It promises: discovery (ServiceProviderConfig,
 * ResourceTypes, Schemas); Users mapped onto Switchboard's accounts — list with filter, paging and
 * attribute selection, read, create, replace, PATCH (with the providers' documented quirks
 * accepted) and delete — where `active: false` deprovisions (sessions and API tokens end at the
 * next request) and every change is audited as "SCIM (<credential name>)"; its own bearer
 * credential, created by an administrator and usable nowhere else; `application/scim+json` and
 * SCIM Error resources on every answer. These routes are left out of the OpenAPI document (the
 * protocol is RFC 7644's, and a SCIM client discovers it through the endpoints above).
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../deps.js'
import { resourceTypes, schemas, serviceProviderConfig } from './discovery.js'
import { notFound } from './errors.js'
import { installScimHttp, scimActorOf } from './http.js'
import { listResponse, listWindow } from './list.js'
import {
  createGroup,
  deleteGroup,
  getGroup,
  listGroups,
  patchGroup,
  replaceGroup,
} from './groups.service.js'
import {
  createScimUser,
  deleteScimUser,
  getScimUser,
  listScimUsers,
  patchScimUser,
  replaceScimUser,
  type ListQuery,
} from './users.service.js'

const scim = { auth: 'scim' as const }
const hidden = { hide: true }
// Query strings and bodies are read by the SCIM layer itself (filter, list and mapping), which
// answers every problem as a SCIM error; the schema only says what shape arrives.
const AnyBody = { type: 'object', additionalProperties: true }
// An empty id (`PUT /Users/`) is a resource that does not exist: 404, as any unknown id.
const IdParams = {
  type: 'object',
  properties: { id: { type: 'string', maxLength: 64 } },
  required: ['id'],
}

/**
 * A collection's path and the same path with a trailing slash: `/scim/v2/Users/` is `/Users`, as
 * clients that join a base URL and a resource name with a slash send it (without the alias it
 * would reach `/Users/:id` with an empty id).
 */
const collection = (path: string) => [path, `${path}/`]

export function scimRoutes(deps: Deps): FastifyPluginAsync {
  const baseUrl = `${deps.config.publicUrl.replace(/\/$/, '')}/scim/v2`
  return async (app) => {
    installScimHttp(app, deps)

    app.get('/ServiceProviderConfig', { config: scim, schema: hidden }, async () =>
      serviceProviderConfig(baseUrl),
    )
    for (const url of collection('/ResourceTypes'))
      app.get(url, { config: scim, schema: hidden }, async () => {
        const all = resourceTypes(baseUrl)
        return listResponse(all, listWindow({ count: all.length }), (r) => r)
      })
    app.get(
      '/ResourceTypes/:id',
      { config: scim, schema: { ...hidden, params: IdParams } },
      async (request) => {
        const { id } = request.params as { id: string }
        const found = resourceTypes(baseUrl).find((r) => r.id === id)
        if (found === undefined) throw notFound('No such resource type.')
        return found
      },
    )
    for (const url of collection('/Schemas'))
      app.get(url, { config: scim, schema: hidden }, async () => {
        const all = schemas(baseUrl)
        return listResponse(all, listWindow({ count: all.length }), (r) => r)
      })
    app.get(
      '/Schemas/:id',
      { config: scim, schema: { ...hidden, params: IdParams } },
      async (request) => {
        const { id } = request.params as { id: string }
        const found = schemas(baseUrl).find((s) => s.id === id)
        if (found === undefined) throw notFound('No such schema.')
        return found
      },
    )

    app.get(
      '/Users/:id',
      { config: scim, schema: { ...hidden, params: IdParams } },
      async (request) =>
        getScimUser(
          deps,
          scimActorOf(request),
          (request.params as { id: string }).id,
          request.query as ListQuery,
          baseUrl,
        ),
    )
    for (const url of collection('/Users')) {
      app.get(url, { config: scim, schema: hidden }, async (request) =>
        listScimUsers(deps, scimActorOf(request), request.query as ListQuery, baseUrl),
      )
      app.post(
        url,
        { config: scim, schema: { ...hidden, body: AnyBody } },
        async (request, reply) => {
          const resource = await createScimUser(deps, scimActorOf(request), request.body, baseUrl)
          return reply
            .code(201)
            .header('location', (resource.meta as { location: string }).location)
            .send(resource)
        },
      )
    }
    app.put(
      '/Users/:id',
      { config: scim, schema: { ...hidden, params: IdParams, body: AnyBody } },
      async (request) =>
        replaceScimUser(
          deps,
          scimActorOf(request),
          (request.params as { id: string }).id,
          request.body,
          baseUrl,
        ),
    )
    // RFC 7644 §3.5.2: 200 with the resource (Okta and Entra both accept it for Users).
    app.patch(
      '/Users/:id',
      { config: scim, schema: { ...hidden, params: IdParams, body: AnyBody } },
      async (request) =>
        patchScimUser(
          deps,
          scimActorOf(request),
          (request.params as { id: string }).id,
          request.body,
          baseUrl,
        ),
    )
    app.get(
      '/Groups/:id',
      { config: scim, schema: { ...hidden, params: IdParams } },
      async (request) =>
        getGroup(deps, (request.params as { id: string }).id, request.query as ListQuery, baseUrl),
    )
    for (const url of collection('/Groups')) {
      app.get(url, { config: scim, schema: hidden }, async (request) =>
        listGroups(deps, request.query as ListQuery, baseUrl),
      )
      app.post(
        url,
        { config: scim, schema: { ...hidden, body: AnyBody } },
        async (request, reply) => {
          const resource = await createGroup(deps, scimActorOf(request), request.body, baseUrl)
          return reply
            .code(201)
            .header('location', (resource.meta as { location: string }).location)
            .send(resource)
        },
      )
    }
    app.put(
      '/Groups/:id',
      { config: scim, schema: { ...hidden, params: IdParams, body: AnyBody } },
      async (request) =>
        replaceGroup(
          deps,
          scimActorOf(request),
          (request.params as { id: string }).id,
          request.body,
          baseUrl,
        ),
    )
    app.patch(
      '/Groups/:id',
      { config: scim, schema: { ...hidden, params: IdParams, body: AnyBody } },
      async (request, reply) => {
        const resource = await patchGroup(
          deps,
          scimActorOf(request),
          (request.params as { id: string }).id,
          request.body,
          baseUrl,
          request.query as ListQuery,
        )
        return resource === null ? reply.code(204).send() : resource
      },
    )
    app.delete(
      '/Groups/:id',
      { config: scim, schema: { ...hidden, params: IdParams } },
      async (request, reply) => {
        await deleteGroup(deps, scimActorOf(request), (request.params as { id: string }).id)
        return reply.code(204).send()
      },
    )

    app.delete(
      '/Users/:id',
      { config: scim, schema: { ...hidden, params: IdParams } },
      async (request, reply) => {
        await deleteScimUser(deps, scimActorOf(request), (request.params as { id: string }).id)
        return reply.code(204).send()
      },
    )
  }
}
