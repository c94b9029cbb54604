/**
 * SCIM discovery (RFC 7644 §4, RFC 7643 §5–7): what this server supports, described as identity
 * providers read it — PATCH yes, filter yes with its maximum page size, no bulk, no sort, no etag,
 * no password change through /Me; the bearer credential as the authentication scheme.
 */
import { MAX_SCIM_PAGE } from './list.js'

export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterprise: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  list: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  spConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SCHEMA.spConfig],
    documentationUri: 'https://github.com/switchboard/switchboard/blob/main/docs/API.md#scim',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_SCIM_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM credential',
        description:
          'A bearer token (scim_…) created by an administrator under Administration → Provisioning.',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  }
}

export function resourceTypes(baseUrl: string) {
  return [
    {
      schemas: [SCHEMA.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A Switchboard account',
      schema: SCHEMA.user,
      schemaExtensions: [{ schema: SCHEMA.enterprise, required: false }],
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [SCHEMA.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A Switchboard team',
      schema: SCHEMA.group,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
    },
  ]
}

type Attribute = Record<string, unknown>

const attr = (name: string, extra: Attribute = {}): Attribute => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
})

const complex = (name: string, subAttributes: Attribute[], extra: Attribute = {}): Attribute =>
  attr(name, { type: 'complex', subAttributes, ...extra })

export function schemas(baseUrl: string) {
  const user = {
    schemas: [SCHEMA.schema],
    id: SCHEMA.user,
    name: 'User',
    description: 'User Account',
    attributes: [
      attr('userName', { required: true, uniqueness: 'server' }),
      complex('name', [attr('formatted'), attr('givenName'), attr('familyName')]),
      attr('displayName'),
      attr('active', { type: 'boolean' }),
      attr('password', { mutability: 'writeOnly', returned: 'never' }),
      // An email names one account (it is the sign-in identifier): a taken one is 409.
      complex(
        'emails',
        [
          attr('value', { uniqueness: 'server' }),
          attr('type'),
          attr('primary', { type: 'boolean' }),
        ],
        { multiValued: true, uniqueness: 'server' },
      ),
      // Unique within the provisioning domain of the credential that sets it (RFC 7643 §3.1).
      attr('externalId', { caseExact: true, uniqueness: 'server' }),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCHEMA.user}` },
  }
  const enterprise = {
    schemas: [SCHEMA.schema],
    id: SCHEMA.enterprise,
    name: 'EnterpriseUser',
    description: 'Enterprise User',
    attributes: [
      attr('employeeNumber'),
      attr('department'),
      complex('manager', [attr('value'), attr('displayName', { mutability: 'readOnly' })]),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCHEMA.enterprise}` },
  }
  const group = {
    schemas: [SCHEMA.schema],
    id: SCHEMA.group,
    name: 'Group',
    description: 'Group (a Switchboard team)',
    attributes: [
      attr('displayName', { required: true, uniqueness: 'server' }),
      complex(
        'members',
        [attr('value', { mutability: 'immutable' }), attr('display', { mutability: 'readOnly' })],
        { multiValued: true },
      ),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCHEMA.group}` },
  }
  return [user, enterprise, group]
}
