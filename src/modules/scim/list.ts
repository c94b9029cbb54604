/**
 * SCIM list answers (RFC 7644 §3.4.2): 1-based `startIndex`, `count` (0 gives only the total),
 * always a ListResponse; and `attributes` / `excludedAttributes` (§3.4.2.5) applied to each
 * resource, `id` and `schemas` always kept.
 */
import { ScimError } from './errors.js'
import { keyOf, splitAttrPath } from './filter.js'

export const MAX_SCIM_PAGE = 200
export const DEFAULT_SCIM_PAGE = 100

export interface ListWindow {
  startIndex: number
  count: number
}

function integerParam(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined
  const number = Number(value)
  if (!Number.isInteger(number))
    throw new ScimError(400, `${name} must be an integer.`, 'invalidValue')
  return number
}

/** RFC 7644 §3.4.2.4: startIndex < 1 is read as 1, a negative count as 0, and count is capped. */
export function listWindow(query: { startIndex?: unknown; count?: unknown }): ListWindow {
  const startIndex = Math.max(1, integerParam(query.startIndex, 'startIndex') ?? 1)
  const count = Math.min(
    MAX_SCIM_PAGE,
    Math.max(0, integerParam(query.count, 'count') ?? DEFAULT_SCIM_PAGE),
  )
  return { startIndex, count }
}

export function listResponse(
  all: Array<Record<string, unknown>>,
  window: ListWindow,
  project: (r: Record<string, unknown>) => Record<string, unknown>,
) {
  const page =
    window.count === 0 ? [] : all.slice(window.startIndex - 1, window.startIndex - 1 + window.count)
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: all.length,
    startIndex: window.startIndex,
    itemsPerPage: page.length,
    Resources: page.map(project),
  }
}

/** A ListResponse for a page already cut (by SQL) out of `totalResults` matches. */
export function pagedListResponse(
  page: Array<Record<string, unknown>>,
  totalResults: number,
  window: ListWindow,
  project: (r: Record<string, unknown>) => Record<string, unknown>,
) {
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults,
    startIndex: window.startIndex,
    itemsPerPage: page.length,
    Resources: page.map(project),
  }
}

function pathsOf(text: unknown): string[] {
  if (typeof text !== 'string' || text.trim() === '') return []
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
}

const ALWAYS = new Set(['id', 'schemas'])

/**
 * A projection function for `attributes` / `excludedAttributes`; identity when neither is given.
 */
export function projection(query: {
  attributes?: unknown
  excludedAttributes?: unknown
}): (resource: Record<string, unknown>) => Record<string, unknown> {
  const include = pathsOf(query.attributes)
  const exclude = pathsOf(query.excludedAttributes)
  if (include.length > 0) {
    return (resource) => {
      const out: Record<string, unknown> = {}
      for (const key of Object.keys(resource)) if (ALWAYS.has(key)) out[key] = resource[key]
      for (const path of include) copyPath(resource, out, path)
      return out
    }
  }
  if (exclude.length > 0) {
    return (resource) => {
      const out = structuredClone(resource)
      for (const path of exclude) removePath(out, path)
      return out
    }
  }
  return (resource) => resource
}

function container(
  resource: Record<string, unknown>,
  urn: string | null,
): Record<string, unknown> | undefined {
  if (urn === null) return resource
  const key = keyOf(resource, urn)
  const value = key === undefined ? undefined : resource[key]
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)
    : undefined
}

function copyPath(from: Record<string, unknown>, to: Record<string, unknown>, path: string): void {
  const { urn, names } = splitAttrPath(path)
  const source = container(from, urn)
  if (source === undefined) return
  let target = to
  if (urn !== null) {
    const key = keyOf(from, urn)!
    target = (to[key] ??= {}) as Record<string, unknown>
  }
  const [first, sub] = names
  const key = keyOf(source, first!)
  if (key === undefined) return
  const value = source[key]
  if (sub === undefined || typeof value !== 'object' || value === null) {
    target[key] = value
    return
  }
  if (Array.isArray(value)) {
    target[key] = value.map((element: Record<string, unknown>) => {
      const subKey = keyOf(element, sub)
      return subKey === undefined ? {} : { [subKey]: element[subKey] }
    })
    return
  }
  const object = value as Record<string, unknown>
  const subKey = keyOf(object, sub)
  if (subKey !== undefined) target[key] = { ...(target[key] ?? {}), [subKey]: object[subKey] }
}

function removePath(resource: Record<string, unknown>, path: string): void {
  const { urn, names } = splitAttrPath(path)
  const source = container(resource, urn)
  if (source === undefined) return
  const [first, sub] = names
  const key = keyOf(source, first!)
  if (key === undefined || ALWAYS.has(key)) return
  if (sub === undefined) {
    delete source[key]
    return
  }
  const value = source[key]
  for (const element of Array.isArray(value) ? value : [value]) {
    if (typeof element !== 'object' || element === null) continue
    const subKey = keyOf(element as Record<string, unknown>, sub)
    if (subKey !== undefined) delete (element as Record<string, unknown>)[subKey]
  }
}
