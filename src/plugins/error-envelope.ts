/**
 * The error envelope of docs/API.md#errors as a shared schema: routes reference it for every error
 * status, the OpenAPI document shows it once as a component, and the serializer sends no field
 * that is not in it.
 */
import { Type, type Static } from '@sinclair/typebox'
import { FIELD_PROBLEM_CODES, REASONS } from '../errors.js'

export const ErrorEnvelope = Type.Object(
  {
    error: Type.String({ description: 'HTTP status name', examples: ['Bad Request'] }),
    message: Type.String({ description: 'Human-readable, safe to show' }),
    code: Type.Integer({ description: 'Equals the HTTP status' }),
    reason: Type.Unsafe<string>({
      type: 'string',
      enum: Object.keys(REASONS),
      description: 'Stable machine-readable reason',
    }),
    details: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object({
            field: Type.String({
              description: 'The field, as a dotted path in the body, query or parameters',
            }),
            message: Type.String({
              description: 'What is wrong, in English, for people reading the API',
            }),
            code: Type.Unsafe<string>({
              type: 'string',
              enum: [...FIELD_PROBLEM_CODES],
              description:
                'Stable machine-readable kind of problem, for clients to say it in their own words: required; unknown_field; ' +
                'too_few_fields (an empty change); empty; too_short / too_long (characters, see limit); too_small / too_large (see limit); ' +
                'not_one_of (see allowed); format (see format: email, uri, date-time …); invalid_characters (control, invisible or ' +
                'text-direction characters in display text); pattern (another required form); wrong_type; invalid (a rule of the service: see message)',
            }),
            limit: Type.Optional(
              Type.Number({
                description: 'For too_short, too_long, too_small, too_large: the bound',
              }),
            ),
            allowed: Type.Optional(
              Type.Array(Type.String(), { description: 'For not_one_of: the accepted values' }),
            ),
            format: Type.Optional(
              Type.String({ description: 'For format: the expected format', examples: ['email'] }),
            ),
          }),
          { description: 'On 400: one entry per invalid field' },
        ),
        Type.String({ description: 'On 409: what the request conflicts with' }),
        Type.Object(
          { required: Type.String({ description: 'The permission, e.g. links:write' }) },
          {
            description: 'On 403 INSUFFICIENT_SCOPE: the permission the API token lacks',
            additionalProperties: false,
          },
        ),
      ]),
    ),
    retryAfter: Type.Optional(
      Type.Integer({ description: 'On 429: whole seconds until a retry can succeed' }),
    ),
  },
  { $id: 'Error', title: 'Error', additionalProperties: false },
)
export type ErrorEnvelope = Static<typeof ErrorEnvelope>
