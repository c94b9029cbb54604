/**
 * TypeBox building blocks shared by the modules' wire schemas, so every text field, email, id and
 * collection follows the conventions of docs/API.md#conventions the same way.
 */
import { Type, type Static, type TSchema, type StringOptions } from '@sinclair/typebox'
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './pagination.js'

/**
 * No C0/C1 control characters (tabs and newlines included) and no lone UTF-16 surrogates (which
 * cannot be stored as UTF-8) in single-line free text. Ajv compiles patterns with the `u` flag.
 */
const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f-\\u009f\\ud800-\\udfff]*$'

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** Free text: trimmed before validation (the `x-trim` keyword), control characters rejected. */
export const Text = (options: StringOptions & { minLength: number; maxLength: number }) =>
  Type.String({
    ...options,
    'x-trim': true,
    pattern: NO_CONTROL_CHARACTERS,
    'x-message': 'must not contain control characters or unpaired surrogates',
  })

/**
 * Text that other people read (names, titles): besides control characters, no Unicode format or
 * separator characters — bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069), zero-width
 * space and direction marks (U+200B, U+200E, U+200F), the BOM (U+FEFF), line and paragraph
 * separators (U+2028/2029) and every other format character (category Cf) — which could make a
 * name show as something else. Two format characters are allowed, because real
 * scripts need them: ZERO WIDTH NON-JOINER (U+200C, Persian "نیک‌نام") and ZERO WIDTH
 * JOINER (U+200D, emoji sequences such as 👩‍💻, Indic conjuncts); neither changes direction.
 * Ajv compiles patterns with the `u` flag, so \p{…} classes work.
 */
export const DISPLAY_TEXT_PATTERN =
  '^(?:[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\ud800-\\udfff]|[\\u200c\\u200d])*$'
const DISPLAY_TEXT = new RegExp(DISPLAY_TEXT_PATTERN, 'u')

/** Display text: trimmed, control, format (bidi, zero-width) and separator characters rejected. */
export const DisplayText = (options: StringOptions & { minLength: number; maxLength: number }) =>
  Type.String({
    ...options,
    'x-trim': true,
    pattern: DISPLAY_TEXT_PATTERN,
    'x-message': 'must not contain control, invisible or text-direction characters',
    'x-code': 'invalid_characters',
  })

/**
 * Whether text passes DisplayText's character rule (for text that does not come through a schema).
 */
export function isDisplayText(text: string): boolean {
  return DISPLAY_TEXT.test(text)
}

/** An email address: trimmed, at most 254 characters; services lower-case it before use. */
export const Email = () =>
  Type.String({ 'x-trim': true, format: 'email', minLength: 3, maxLength: 254 })

/**
 * A secret taken exactly as sent (passwords, codes): no trimming; the service applies its own
 * rules.
 */
export const Secret = (maxLength = 1024) => Type.String({ minLength: 1, maxLength })

export const Timestamp = () =>
  Type.String({ format: 'date-time', examples: ['2026-11-21T10:00:00.000Z'] })

/**
 * A resource id in a path. Deliberately not checked as a UUID, nor for length: a malformed id is
 * "not found" (404), never a validation error (docs/API.md#conventions), so clients cannot tell
 * apart ids that never existed.
 */
export const PathId = () => Type.String({ minLength: 1 })
export const IdParams = Type.Object({ id: PathId() })
export type IdParams = Static<typeof IdParams>

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { additionalProperties: false },
)
export type PageQuery = Static<typeof PageQuery>

export const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Nullable(Type.String()) })

/**
 * Objects in requests reject unknown fields (docs/API.md#conventions) instead of silently ignoring
 * them.
 */
export const Body = <T extends Record<string, TSchema>>(
  properties: T,
  options: { minProperties?: number } = {},
) => Type.Object(properties, { additionalProperties: false, ...options })

/** The 204 response: no body (OpenAPI shows no content for `type: null`). */
export const NoContent = Type.Null({ description: 'No content' })
