/**
 * What each token permission opens, read from the API's own OpenAPI document (issue 28): every
 * operation states the permission an API token needs as the scope of its bearer security
 * requirement, so the token form lists exactly what the server enforces.
 */

export const AREAS = [
  'profile',
  'links',
  'organizations',
  'billing',
  'admin.users',
  'admin.teams',
  'admin.settings',
  'admin.audit',
  'admin.identity_providers',
] as const
export type Area = (typeof AREAS)[number]
export type Access = 'none' | 'read' | 'write'

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

export function catalogueOf(document: { paths?: Record<string, Record<string, DocumentOperation>> }): Catalogue {
  const catalogue: Catalogue = {}
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const scope = operation.security?.find((requirement) => 'bearerAuth' in requirement)?.bearerAuth?.[0]
      if (scope === undefined) continue
      const [area, kind] = scope.split(':') as [string, 'read' | 'write']
      ;(catalogue[area] ??= []).push({ method: method.toUpperCase(), path, summary: operation.summary ?? '', kind })
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
export function permissionsOf(choices: Partial<Record<Area, Access>>): string[] {
  return AREAS.flatMap((area) => {
    const access = choices[area] ?? 'none'
    return access === 'none' ? [] : [`${area}:${access}`]
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
