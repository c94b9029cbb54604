/**
 * SCIM filters (RFC 7644 §3.4.2.2). Parsing is scim2-parse-filter's (Unlicense); evaluation is
 * ours, over a resource as this server renders it, with the RFC's rules: attribute names ignore
 * case, string comparisons ignore case except for caseExact attributes (id, externalId), a
 * multi-valued attribute matches when any of its values does, and `meta.created` /
 * `meta.lastModified` compare as instants. A filter the parser refuses is 400 invalidFilter.
 */
import { parse, type Compare, type Filter } from 'scim2-parse-filter'
import { ScimError } from './errors.js'

export type { Compare, Filter }
type Json = unknown

const CASE_EXACT = new Set(['id', 'externalid'])
const INSTANTS = new Set(['meta.created', 'meta.lastmodified'])
const CORE_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i
/** Extension schemas whose attributes live under the schema URN's key in a resource. */
export const EXTENSION_SCHEMAS = ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User']
const MAX_FILTER_LENGTH = 4096
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/

/** The `filter` query parameter: absent or blank is no filter; sent twice is not a filter. */
export function filterParam(value: unknown): Filter | null {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return null
  if (typeof value !== 'string')
    throw new ScimError(400, 'Send one filter parameter.', 'invalidFilter')
  // No stored value holds a control character, and PostgreSQL cannot even compare text holding NUL.
  if (CONTROL_CHARACTER.test(value))
    throw new ScimError(400, 'The filter holds a control character.', 'invalidFilter')
  return parseFilter(value)
}

export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH)
    throw new ScimError(400, 'The filter is too long.', 'invalidFilter')
  try {
    return parse(text)
  } catch (error) {
    throw new ScimError(
      400,
      `The filter cannot be parsed: ${(error as Error).message.slice(0, 200)}`,
      'invalidFilter',
    )
  }
}

/** A key of `object` equal to `name` ignoring case, or undefined. */
export function keyOf(object: Record<string, Json>, name: string): string | undefined {
  if (Object.hasOwn(object, name)) return name
  const lower = name.toLowerCase()
  return Object.keys(object).find((key) => key.toLowerCase() === lower)
}

/**
 * An attribute path split into the schema URN it is qualified with (null for the core schema)
 * and its dotted attribute names: `urn:…:enterprise:2.0:User:manager.value` →
 * [enterprise URN, ['manager', 'value']].
 */
export function splitAttrPath(path: string): { urn: string | null; names: string[] } {
  const core = CORE_PREFIX.exec(path)
  if (core !== null) return { urn: null, names: path.slice(core[0].length).split('.') }
  const lower = path.toLowerCase()
  const extension = EXTENSION_SCHEMAS.find((urn) => lower.startsWith(`${urn.toLowerCase()}:`))
  if (extension !== undefined)
    return { urn: extension, names: path.slice(extension.length + 1).split('.') }
  if (lower.startsWith('urn:')) {
    const colon = path.lastIndexOf(':')
    return { urn: path.slice(0, colon), names: path.slice(colon + 1).split('.') }
  }
  return { urn: null, names: path.split('.') }
}

/** Every value at the path, multi-valued attributes flattened. */
export function valuesAt(resource: Json, path: string): Json[] {
  const { urn, names } = splitAttrPath(path)
  let current: Json[] = [resource]
  if (urn !== null) current = step(current, urn)
  for (const name of names) current = step(current, name)
  return current
    .flatMap((value) => (Array.isArray(value) ? (value as Json[]) : [value]))
    .filter((value) => value !== undefined && value !== null)
}

function step(values: Json[], name: string): Json[] {
  const out: Json[] = []
  for (const value of values.flatMap((v) => (Array.isArray(v) ? (v as Json[]) : [v]))) {
    if (typeof value !== 'object' || value === null) continue
    const key = keyOf(value as Record<string, Json>, name)
    if (key !== undefined) out.push((value as Record<string, Json>)[key])
  }
  return out
}

function compare(op: string, path: string, actual: Json, expected: Json): boolean {
  const lowerPath = splitAttrPath(path).names.join('.').toLowerCase()
  if (INSTANTS.has(lowerPath) && typeof actual === 'string' && typeof expected === 'string') {
    const a = Date.parse(actual)
    const b = Date.parse(expected)
    if (Number.isNaN(a) || Number.isNaN(b)) return false
    return ordered(op, a, b)
  }
  if (typeof actual === 'string' && typeof expected === 'string') {
    const exact = CASE_EXACT.has(lowerPath)
    const a = exact ? actual : actual.toLowerCase()
    const b = exact ? expected : expected.toLowerCase()
    if (op === 'co') return a.includes(b)
    if (op === 'sw') return a.startsWith(b)
    if (op === 'ew') return a.endsWith(b)
    return ordered(op, a, b)
  }
  if (typeof actual === 'boolean') {
    const b = typeof expected === 'string' ? expected.toLowerCase() === 'true' : expected
    if (op === 'eq') return actual === b
    if (op === 'ne') return actual !== b
    return false
  }
  if (typeof actual === 'number' && typeof expected === 'number')
    return ordered(op, actual, expected)
  return false
}

/**
 * Strings order by code point (as SQL's binary comparison of UTF-8 does on both engines), not by
 * JavaScript's UTF-16 units, which put U+10000 and above before U+E000–U+FFFF.
 */
function codePointOrder(a: string, b: string): number {
  const x = Array.from(a)
  const y = Array.from(b)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const difference = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
    if (difference !== 0) return difference
  }
  return x.length - y.length
}

function ordered(op: string, a: string | number, b: string | number): boolean {
  if (typeof a === 'string' && typeof b === 'string' && op !== 'eq' && op !== 'ne')
    return ordered(op, codePointOrder(a, b), 0)
  switch (op) {
    case 'eq':
      return a === b
    case 'ne':
      return a !== b
    case 'gt':
      return a > b
    case 'ge':
      return a >= b
    case 'lt':
      return a < b
    case 'le':
      return a <= b
    default:
      return false
  }
}

/** Whether the resource (or a multi-valued attribute's element) matches the filter. */
export function matches(filter: Filter, resource: Json): boolean {
  switch (filter.op) {
    case 'and':
      return filter.filters.every((f) => matches(f, resource))
    case 'or':
      return filter.filters.some((f) => matches(f, resource))
    case 'not':
      return !matches(filter.filter, resource)
    case '[]':
      return valuesAt(resource, filter.attrPath).some((element) =>
        matches(filter.valFilter, element),
      )
    case 'pr':
      return presentIn(valuesAt(resource, filter.attrPath))
    default:
      return comparisonMatches(filter, valuesAt(resource, filter.attrPath))
  }
}

/** Whether an attribute comparison holds for the attribute's values (none when it is absent). */
export function comparisonMatches(filter: Compare, values: Json[]): boolean {
  // `ne` holds when no value equals (an absent attribute is not equal to anything).
  if (filter.op === 'ne')
    return !values.some((value) => compare('eq', filter.attrPath, value, filter.compValue))
  return values.some((value) => compare(filter.op, filter.attrPath, value, filter.compValue))
}

/** `pr`: some value that is neither an empty string nor an empty list. */
export function presentIn(values: Json[]): boolean {
  return values.some((value) => value !== '' && !(Array.isArray(value) && value.length === 0))
}

/** Whether a comparison on `attrPath` compares case-exactly (RFC 7643: id and externalId). */
export function isCaseExact(attrPath: string): boolean {
  return CASE_EXACT.has(splitAttrPath(attrPath).names.join('.').toLowerCase())
}
