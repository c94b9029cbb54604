import { Type } from '@sinclair/typebox'
import { Nullable, Timestamp } from '../../lib/schema-types.js'

export const ScimRequestView = Type.Object(
  {
    id: Type.String(),
    created_at: Timestamp(),
    method: Type.String(),
    path: Type.String({
      description: 'The path under /scim/v2 as requested, without its query string',
    }),
    status: Type.Integer(),
    scim_type: Nullable(
      Type.String({ description: "The SCIM error's scimType (RFC 7644 §3.12), when it has one" }),
    ),
    duration_ms: Type.Integer(),
    credential_id: Nullable(
      Type.String({ description: 'null: the request carried no valid SCIM credential' }),
    ),
    credential_name: Nullable(Type.String()),
    subject: Nullable(
      Type.String({
        description:
          'On a 409 uniqueness: the userName (Users) or displayName (Groups) that is already taken; null otherwise',
      }),
    ),
  },
  { title: 'ScimRequest' },
)

export const ScimRequestList = Type.Object({ items: Type.Array(ScimRequestView) })
