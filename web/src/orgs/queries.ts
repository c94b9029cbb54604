/**
 * The organizations area's data: queries over the API and the role table the pages decide with.
 * The role table mirrors the service's (src/modules/organizations/roles.ts), so a page offers only
 * what the API will accept; the API still decides.
 */
import { infiniteQueryOptions, queryOptions, type QueryClient } from '@tanstack/react-query'
import { redirect } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'

export type Role = 'owner' | 'admin' | 'member'
export const ROLES: readonly Role[] = ['owner', 'admin', 'member']

type Permission =
  'update' | 'delete' | 'billing' | 'manage_members' | 'manage_invitations' | 'manage_owners'

const PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set<Permission>([
    'update',
    'delete',
    'billing',
    'manage_members',
    'manage_invitations',
    'manage_owners',
  ]),
  admin: new Set<Permission>(['update', 'manage_members', 'manage_invitations']),
  member: new Set<Permission>(),
}

export function can(role: Role, permission: Permission): boolean {
  return PERMISSIONS[role].has(permission)
}

/**
 * Whether `actor` may change or remove someone whose role is `target` (an owner needs an owner).
 */
export function mayManage(
  actor: Role,
  target: Role,
  permission: 'manage_members' | 'manage_invitations' = 'manage_members',
): boolean {
  return can(actor, permission) && (target !== 'owner' || can(actor, 'manage_owners'))
}

/** The roles `actor` may grant (to a member or in an invitation). */
export function grantableRoles(actor: Role): Role[] {
  return ROLES.filter((role) => mayManage(actor, role))
}

/** Pages of a collection: up to 100 at a time, the next on request (never unbounded). */
const PAGE_SIZE = 100
const nextCursor = (page: { next_cursor: string | null }) => page.next_cursor ?? undefined

/**
 * A collection of the API as pages: `fetchPage` gets the cursor of the page to load (none for the
 * first).
 */
function paged<Page extends { next_cursor: string | null }>(
  queryKey: string[],
  fetchPage: (query: { limit: number; cursor?: string }) => Promise<Page>,
) {
  return infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) =>
      fetchPage({ limit: PAGE_SIZE, ...(pageParam !== '' && { cursor: pageParam }) }),
    initialPageParam: '',
    getNextPageParam: nextCursor,
  })
}

export const organizationsQuery = paged(['organizations'], (query) =>
  unwrap(client.GET('/api/organizations', { params: { query } })),
)

export const organizationQuery = (id: string) =>
  queryOptions({
    queryKey: ['organizations', id],
    queryFn: () => unwrap(client.GET('/api/organizations/{id}', { params: { path: { id } } })),
  })

/** An organization id (UUID): console addresses made before they named the slug. */
export const ORGANIZATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The organization a console address names by its slug, among the person's organizations (the
 * API addresses them by id); a slug none of them has is a 404, the not-found page.
 */
export const organizationBySlugQuery = (slug: string) =>
  queryOptions({
    queryKey: ['organizations', 'by-slug', slug],
    // Looked up again on each visit (a rename or deletion elsewhere), not on hover and click both.
    staleTime: 5_000,
    queryFn: async () => {
      let cursor: string | undefined
      do {
        const page = await unwrap(
          client.GET('/api/organizations', {
            params: { query: { limit: PAGE_SIZE, ...(cursor !== undefined && { cursor }) } },
          }),
        )
        const found = page.items.find((organization) => organization.slug === slug)
        if (found !== undefined) return found
        cursor = nextCursor(page)
      } while (cursor !== undefined)
      throw new ApiError(404, 'NOT_FOUND', 'no such organization', [], null)
    },
  })

/**
 * The organization of a console address (`param`: its slug, or its id from an older address, which
 * is redirected to the slug's address `to`), in the cache for the page.
 */
export async function loadOrganization(
  queryClient: QueryClient,
  param: string,
  to: '/orgs/$org' | '/orgs/$org/billing',
  search: object,
) {
  if (ORGANIZATION_ID.test(param)) {
    const byId = await queryClient
      .ensureQueryData(organizationQuery(param))
      .catch((error: unknown) => {
        // An id-shaped slug: looked up as a slug below.
        if (error instanceof ApiError && error.status === 404) return null
        throw error
      })
    if (byId !== null) {
      // TanStack Router's redirect is thrown by design.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw redirect({ to, params: { org: byId.slug }, search, replace: true })
    }
  }
  const organization = await queryClient.fetchQuery(organizationBySlugQuery(param))
  queryClient.setQueryData(
    organizationQuery(organization.id).queryKey,
    (known) => known ?? organization,
  )
  return organization
}

export const membersQuery = (id: string) =>
  paged(['organizations', id, 'members'], (query) =>
    unwrap(client.GET('/api/organizations/{id}/members', { params: { path: { id }, query } })),
  )

export const invitationsQuery = (id: string) =>
  paged(['organizations', id, 'invitations'], (query) =>
    unwrap(client.GET('/api/organizations/{id}/invitations', { params: { path: { id }, query } })),
  )

export const myInvitationsQuery = paged(['my-invitations'], (query) =>
  unwrap(client.GET('/api/invitations', { params: { query } })),
)

export const plansQuery = queryOptions({
  queryKey: ['billing-plans'],
  queryFn: () => unwrap(client.GET('/api/billing/plans', { params: { query: { limit: 200 } } })),
})

export type Organization = Awaited<
  ReturnType<NonNullable<ReturnType<typeof organizationQuery>['queryFn']>>
>
