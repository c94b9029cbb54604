/**
 * The error envelope of CONTRACT.md §2 as a shared schema: routes reference it for every error
 * status, the OpenAPI document shows it once as a component, and the serializer sends no field
 * that is not in it.
 */
import { Type, type Static } from '@sinclair/typebox'
import { REASONS } from '../errors.js'

export const ErrorEnvelope = Type.Object(
  {
    error: Type.String({ description: 'HTTP status name', examples: ['Bad Request'] }),
    message: Type.String({ description: 'Human-readable, safe to show' }),
    code: Type.Integer({ description: 'Equals the HTTP status' }),
    reason: Type.Unsafe<string>({ type: 'string', enum: Object.keys(REASONS), description: 'Stable machine-readable reason' }),
    details: Type.Optional(
      Type.Union([
        Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
          description: 'On 400: one entry per invalid field',
        }),
        Type.String({ description: 'On 409: what the request conflicts with' }),
        Type.Object(
          { required: Type.String({ description: 'The permission, e.g. links:write' }) },
          { description: 'On 403 INSUFFICIENT_SCOPE: the permission the API token lacks', additionalProperties: false },
        ),
      ]),
    ),
    retryAfter: Type.Optional(Type.Integer({ description: 'On 429: whole seconds until a retry can succeed' })),
  },
  { $id: 'Error', title: 'Error', additionalProperties: false },
)
export type ErrorEnvelope = Static<typeof ErrorEnvelope>
