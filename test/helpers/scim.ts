/**
 * SCIM requests as an identity provider sends them, with a credential made through the admin API.
 */
import type { LightMyRequestResponse } from 'fastify'
import type { TestContext } from './app.js'
import { bearer, createSignedInUser } from './factories.js'

export const SCIM_MEDIA = 'application/scim+json'
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error'
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User'
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'

export interface ScimClient {
  token: string
  credentialId: string
  adminToken: string
  request(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>
}

let clients = 0

/**
 * A signed-in administrator, and a SCIM credential they created under `name` — by default a name
 * of its own, since only one live credential may carry a name (migration 0033).
 */
export async function scimClient(t: TestContext, name = `Okta ${++clients}`): Promise<ScimClient> {
  const admin = await createSignedInUser(t, { isAdmin: true })
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/admin/scim/credentials',
    headers: bearer(admin.token),
    payload: { name, current_password: admin.password },
  })
  if (created.statusCode !== 201)
    throw new Error(`credential creation failed: ${created.statusCode} ${created.body}`)
  const token = created.json().token as string
  return {
    token,
    credentialId: created.json().id,
    adminToken: admin.token,
    request: (method, url, body) =>
      t.app.inject({
        method: method as 'GET',
        url: `/scim/v2${url}`,
        headers: { ...bearer(token), ...(body !== undefined && { 'content-type': SCIM_MEDIA }) },
        ...(body !== undefined && { payload: JSON.stringify(body) }),
      }),
  }
}

/** Asserts a SCIM Error resource with the status (as a string) and, when given, the scimType. */
export function expectScimError(
  response: LightMyRequestResponse,
  status: number,
  scimType?: string,
): void {
  if (response.statusCode !== status)
    throw new Error(`expected ${status}, got ${response.statusCode}: ${response.body}`)
  if (!String(response.headers['content-type']).startsWith(SCIM_MEDIA))
    throw new Error(`not ${SCIM_MEDIA}: ${response.headers['content-type']}`)
  const body = response.json()
  if (
    body.schemas?.[0] !== ERROR_SCHEMA ||
    body.status !== String(status) ||
    typeof body.detail !== 'string'
  ) {
    throw new Error(`not a SCIM Error resource: ${response.body}`)
  }
  if (scimType !== undefined && body.scimType !== scimType)
    throw new Error(`expected scimType ${scimType}: ${response.body}`)
}
