/**
 * SCIM PATCH (RFC 7644 §3.5.2) applied to a resource as JSON, with the identity providers' known
 * departures from the RFC accepted rather than refused (each has broken someone's offboarding):
 *
 * - `op` in any case (Entra sends `Replace`, `Add`, `Remove`);
 * - a path-less `replace`/`add` whose value object has dotted (`name.givenName`) and
 *   schema-qualified (`urn:…:enterprise:2.0:User:employeeNumber`) keys (Entra);
 * - `add` (or `replace`) on a filtered path whose element does not exist yet
 *   (`emails[type eq "work"].value`): the element is created from the filter's `eq` terms (Entra).
 *
 * Booleans as strings ("True", "False") are left as sent here and read by the resource mapping,
 * which accepts them wherever a boolean is expected. The result is then stored as a PUT would
 * store it, so PATCH and PUT share one set of rules.
 */
import { parse, type Filter } from 'scim2-parse-filter'
import { ScimError } from './errors.js'
import { EXTENSION_SCHEMAS, keyOf, matches, splitAttrPath } from './filter.js'

type Json = unknown
type JsonObject = Record<string, Json>

export interface PatchOperation {
  op: string
  path?: string
  value?: Json
}

const MAX_OPERATIONS = 1000
const CORE_SCHEMA = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group)$/i

interface ParsedPath {
  urn: string | null
  attr: string
  filter: Filter | null
  sub: string | null
}

/** `attr`, `attr.sub`, `urn:…:attr`, `attr[filter]`, `attr[filter].sub`. */
export function parsePatchPath(path: string): ParsedPath {
  const open = path.indexOf('[')
  if (open === -1) {
    const { urn, names } = splitAttrPath(path.trim())
    if (names.length === 0 || names.length > 2 || names.some((name) => name === ''))
      throw invalidPath(path)
    return { urn, attr: names[0]!, filter: null, sub: names[1] ?? null }
  }
  const close = path.lastIndexOf(']')
  if (close < open) throw invalidPath(path)
  const { urn, names } = splitAttrPath(path.slice(0, open).trim())
  if (names.length !== 1 || names[0] === '') throw invalidPath(path)
  let filter: Filter
  try {
    filter = parse(path.slice(open + 1, close))
  } catch {
    throw new ScimError(
      400,
      `The filter in the path "${path.slice(0, 200)}" cannot be parsed.`,
      'invalidFilter',
    )
  }
  const rest = path.slice(close + 1)
  if (rest !== '' && !/^\.[A-Za-z][\w$-]*$/.test(rest)) throw invalidPath(path)
  return { urn, attr: names[0]!, filter, sub: rest === '' ? null : rest.slice(1) }
}

function invalidPath(path: string): ScimError {
  return new ScimError(
    400,
    `The path "${path.slice(0, 200)}" is not a valid attribute path.`,
    'invalidPath',
  )
}

/**
 * The object holding the path's attribute: the resource, or its extension's object (made if
 * absent).
 */
function holder(resource: JsonObject, urn: string | null, create: boolean): JsonObject | undefined {
  if (urn === null) return resource
  const key = keyOf(resource, urn) ?? (create ? urn : undefined)
  if (key === undefined) return undefined
  if (typeof resource[key] !== 'object' || resource[key] === null) {
    if (!create) return undefined
    resource[key] = {}
  }
  return resource[key] as JsonObject
}

function setAttribute(target: JsonObject, name: string, value: Json, op: 'add' | 'replace'): void {
  const key = keyOf(target, name) ?? name
  const current = target[key]
  // RFC 7644 §3.5.2.1: add to a multi-valued attribute appends; replace takes the new values.
  // §3.5.2.1 and §3.5.2.3: add and replace on a complex attribute set the sub-attributes sent and
  // leave the others unchanged (a replace of `name` with only familyName keeps givenName).
  if (op === 'add' && Array.isArray(current)) {
    target[key] = current.concat(Array.isArray(value) ? value : [value])
  } else if (isObject(current) && isObject(value)) {
    for (const [name, inner] of Object.entries(value)) current[keyOf(current, name) ?? name] = inner
  } else {
    target[key] = value
  }
}

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The `attr eq "x"` terms of a filter (joined by `and`): what a new element must carry to match it.
 */
function equalities(filter: Filter): JsonObject | null {
  if (filter.op === 'eq') return { [filter.attrPath]: filter.compValue }
  if (filter.op === 'and') {
    const parts = filter.filters.map(equalities)
    return parts.some((part) => part === null) ? null : (Object.assign({}, ...parts) as JsonObject)
  }
  return null
}

function applyPathless(resource: JsonObject, op: 'add' | 'replace', value: Json): void {
  if (!isObject(value))
    throw new ScimError(
      400,
      'An operation without a path needs an object as its value.',
      'invalidValue',
    )
  for (const [key, entry] of Object.entries(value)) {
    // A schema URN with an object: the extension's attributes, merged.
    const lower = key.toLowerCase()
    const extension = EXTENSION_SCHEMAS.find((urn) => urn.toLowerCase() === lower)
    if (isObject(entry) && (extension !== undefined || CORE_SCHEMA.test(key))) {
      const target = holder(resource, extension ?? null, true)!
      for (const [name, inner] of Object.entries(entry)) setAttribute(target, name, inner, op)
      continue
    }
    applyAt(resource, op, parsePatchPath(key), entry)
  }
}

function applyAt(
  resource: JsonObject,
  op: 'add' | 'replace' | 'remove',
  path: ParsedPath,
  value: Json,
): void {
  const target = holder(resource, path.urn, op !== 'remove')
  if (target === undefined) return
  const key = keyOf(target, path.attr)
  if (path.filter === null) {
    if (op === 'remove') {
      if (key === undefined) return
      // Entra removes members by a list of values:
      // {"op":"Remove","path":"members","value":[{"value":"…"}]}.
      if (path.sub === null && Array.isArray(value) && Array.isArray(target[key])) {
        const drop = new Set(value.map((entry: Json) => (isObject(entry) ? entry.value : entry)))
        target[key] = (target[key] as Json[]).filter(
          (element) => !(isObject(element) && drop.has(element.value)),
        )
        return
      }
      if (path.sub === null) delete target[key]
      else
        for (const element of [target[key]].flat())
          if (isObject(element)) deleteKey(element, path.sub)
      return
    }
    if (path.sub === null) return setAttribute(target, path.attr, value, op)
    const parent = key === undefined ? undefined : target[key]
    if (Array.isArray(parent)) {
      for (const element of parent)
        if (isObject(element)) setAttribute(element, path.sub, value, 'replace')
      return
    }
    const object = isObject(parent) ? parent : {}
    setAttribute(object, path.sub, value, op)
    target[key ?? path.attr] = object
    return
  }
  const list =
    key === undefined ? [] : [target[key]].flat().filter((element) => element !== undefined)
  const hits = list.filter(
    (element) => isObject(element) && matches(path.filter!, element),
  ) as JsonObject[]
  if (op === 'remove') {
    if (hits.length === 0) return
    if (path.sub === null)
      target[key!] = list.filter((element) => !hits.includes(element as JsonObject))
    else for (const element of hits) deleteKey(element, path.sub)
    return
  }
  if (hits.length === 0) {
    // Entra's quirk: add (or replace) on a filtered path whose element does not exist yet.
    const seed = equalities(path.filter)
    if (seed === null) throw new ScimError(400, 'No value matches the path filter.', 'noTarget')
    const element: JsonObject = { ...seed }
    if (path.sub === null) {
      if (isObject(value)) Object.assign(element, value)
    } else {
      element[path.sub] = value
    }
    target[key ?? path.attr] = [...list, element]
    return
  }
  for (const element of hits) {
    if (path.sub === null) {
      if (isObject(value)) Object.assign(element, value)
      else
        throw new ScimError(
          400,
          'A filtered path without a sub-attribute needs an object as its value.',
          'invalidValue',
        )
    } else {
      setAttribute(element, path.sub, value, 'replace')
    }
  }
}

function deleteKey(object: JsonObject, name: string): void {
  const key = keyOf(object, name)
  if (key !== undefined) delete object[key]
}

/** Applies the operations in order to a copy of the resource; the input is left as it was. */
export function applyPatch(resource: JsonObject, operations: Json): JsonObject {
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new ScimError(400, 'Operations must be a non-empty array.', 'invalidSyntax')
  }
  if (operations.length > MAX_OPERATIONS)
    throw new ScimError(400, `At most ${MAX_OPERATIONS} operations per request.`, 'invalidSyntax')
  const out = structuredClone(resource)
  for (const raw of operations as Json[]) {
    if (!isObject(raw) || typeof raw.op !== 'string')
      throw new ScimError(400, 'Every operation needs an op.', 'invalidSyntax')
    const op = raw.op.toLowerCase()
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError(
        400,
        `Unknown op "${raw.op.slice(0, 20)}"; expected add, replace or remove.`,
        'invalidSyntax',
      )
    }
    const path = typeof raw.path === 'string' && raw.path.trim() !== '' ? raw.path : null
    if (path === null) {
      if (op === 'remove') throw new ScimError(400, 'A remove operation needs a path.', 'noTarget')
      applyPathless(out, op, raw.value)
      continue
    }
    if (op !== 'remove' && !('value' in raw))
      throw new ScimError(400, `An ${op} operation needs a value.`, 'invalidValue')
    applyAt(out, op, parsePatchPath(path), raw.value)
  }
  return out
}
