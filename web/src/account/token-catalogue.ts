/**
 * What each token permission opens, read from the API's own OpenAPI document: every
 * operation states the permission an API token needs as the scope of its bearer security
 * requirement, so the token form lists exactly what the server enforces.
 */
import type { components } from '../api/schema'

/**
 * A permission as the API's schema states it (its enum comes from
 * src/identity/permissions.ts).
 */
export type Permission = components['schemas']['ApiToken']['permissions'][number]
export type Area = Permission extends `${infer A}:${'read' | 'write'}` ? A : never

/**
 * Every area of the API's permission enum, in the form's order. The generated types are the one
 * source of truth: an object keyed by Area refuses a missing or an unknown area at type-check, so a
 * permission added to the service (and `npm run api-types`) cannot leave this form out of date.
 */
const AREA_ORDER: Record<Area, true> = {
  profile: true,
  links: true,
  organizations: true,
  billing: true,
  'admin.users': true,
  'admin.teams': true,
  'admin.settings': true,
  'admin.audit': true,
  'admin.identity_providers': true,
  'account.security': true,
}
export const AREAS = Object.keys(AREA_ORDER) as readonly Area[]
export type Access = 'none' | 'read' | 'write'

/** What the form offers for an area: the API's enum has no `account.security:read`. */
export function accessesOf(area: Area): readonly Access[] {
  return area === 'account.security' ? ['none', 'write'] : ['none', 'read', 'write']
}

/** An area the form shows with a warning: it reaches the account's second factor. */
export function isSensitiveArea(area: Area): boolean {
  return area === 'account.security'
}

export interface CatalogueOperation {
  method: string
  path: string
  summary: string
  kind: 'read' | 'write'
}

export type Catalogue = Record<string, CatalogueOperation[]>

interface DocumentOperation {
  summary?: string
  security?: Array<Record<string, string[]>>
}

export function catalogueOf(document: {
  paths?: Record<string, Record<string, DocumentOperation>>
}): Catalogue {
  const catalogue: Catalogue = {}
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const scope = operation.security?.find((requirement) => 'bearerAuth' in requirement)
        ?.bearerAuth?.[0]
      if (scope === undefined) continue
      const [area, kind] = scope.split(':') as [string, 'read' | 'write']
      ;(catalogue[area] ??= []).push({
        method: method.toUpperCase(),
        path,
        summary: operation.summary ?? '',
        kind,
      })
    }
  }
  return catalogue
}

export async function fetchCatalogue(): Promise<Catalogue> {
  const response = await fetch('/api/openapi.json', { credentials: 'same-origin' })
  if (!response.ok) throw new Error(`GET /api/openapi.json: ${response.status}`)
  return catalogueOf((await response.json()) as Parameters<typeof catalogueOf>[0])
}

/** The permissions the API expects for per-area choices ("write" implies read on the server). */
export function permissionsOf(choices: Partial<Record<Area, Access>>): Permission[] {
  return AREAS.flatMap((area) => {
    const access = choices[area] ?? 'none'
    // accessesOf offers no read for a write-only area, so the pair is one of the API's enum.
    return access === 'none' ? [] : [`${area}:${access}` as Permission]
  })
}

/** The per-area choices a token's permission list stands for (its smallest form). */
export function choicesOf(permissions: readonly string[]): Partial<Record<Area, Access>> {
  const choices: Partial<Record<Area, Access>> = {}
  for (const permission of permissions) {
    const [area, kind] = permission.split(':') as [Area, 'read' | 'write']
    if (kind === 'write' || choices[area] === undefined) choices[area] = kind
  }
  return choices
}
