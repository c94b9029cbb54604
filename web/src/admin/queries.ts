/**
 * The administration's data: queries over the admin API, keyed so a change refetches what it
 * touched.
 */
import { queryOptions } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'

export const PAGE_SIZE = 25

const fetchUser = (id: string) =>
  unwrap(client.GET('/api/admin/users/{id}', { params: { path: { id } } }))
const fetchTeam = (id: string) =>
  unwrap(client.GET('/api/admin/teams/{id}', { params: { path: { id } } }))
const fetchProvider = (id: string) =>
  unwrap(client.GET('/api/oidc-providers/{id}', { params: { path: { id } } }))
const fetchSmtp = () => unwrap(client.GET('/api/admin/settings/smtp'))
const fetchAi = () => unwrap(client.GET('/api/admin/settings/ai'))

export type AdminUser = Awaited<ReturnType<typeof fetchUser>>
export type Team = Awaited<ReturnType<typeof fetchTeam>>
export type OidcProvider = Awaited<ReturnType<typeof fetchProvider>>
export type SmtpSettings = Awaited<ReturnType<typeof fetchSmtp>>
export type AiSettings = Awaited<ReturnType<typeof fetchAi>>

export const usersQuery = (q: string | undefined, cursor: string | undefined, limit = PAGE_SIZE) =>
  queryOptions({
    queryKey: ['admin', 'users', { q, cursor, limit }],
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/users', {
          params: { query: { limit, ...(q && { q }), ...(cursor && { cursor }) } },
        }),
      ),
  })

export const userQuery = (id: string) =>
  queryOptions({
    queryKey: ['admin', 'user', id],
    queryFn: () => fetchUser(id),
  })

export const teamsQuery = (cursor: string | undefined) =>
  queryOptions({
    queryKey: ['admin', 'teams', { cursor }],
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/teams', {
          params: { query: { limit: PAGE_SIZE, ...(cursor && { cursor }) } },
        }),
      ),
  })

export const teamQuery = (id: string) =>
  queryOptions({
    queryKey: ['admin', 'team', id],
    queryFn: () => fetchTeam(id),
  })

export const teamMembersQuery = (id: string, cursor: string | undefined) =>
  queryOptions({
    queryKey: ['admin', 'team', id, 'members', { cursor }],
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/teams/{id}/members', {
          params: { path: { id }, query: { limit: PAGE_SIZE, ...(cursor && { cursor }) } },
        }),
      ),
  })

export const providersAdminQuery = queryOptions({
  queryKey: ['admin', 'providers'],
  // Identity providers are few; 200 (the API's largest page) is the bound, and the page says when
  // there are more.
  queryFn: () => unwrap(client.GET('/api/oidc-providers', { params: { query: { limit: 200 } } })),
})

export const providerQuery = (id: string) =>
  queryOptions({
    queryKey: ['admin', 'provider', id],
    queryFn: () => fetchProvider(id),
  })

export const smtpQuery = queryOptions({ queryKey: ['admin', 'smtp'], queryFn: fetchSmtp })
export const aiQuery = queryOptions({ queryKey: ['admin', 'ai'], queryFn: fetchAi })

export const settingsQuery = (cursor: string | undefined) =>
  queryOptions({
    queryKey: ['admin', 'settings', { cursor }],
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/settings', {
          params: { query: { limit: PAGE_SIZE, ...(cursor && { cursor }) } },
        }),
      ),
  })

export interface AuditFilters {
  action?: string | undefined
  actor_id?: string | undefined
  since?: string | undefined
  until?: string | undefined
}

export const auditQuery = (filters: AuditFilters, cursor: string | undefined) =>
  queryOptions({
    queryKey: ['admin', 'audit', filters, { cursor }],
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/audit-log', {
          params: {
            query: { limit: PAGE_SIZE, ...definedOnly(filters), ...(cursor && { cursor }) },
          },
        }),
      ),
  })

export type AuditEvent = Awaited<
  ReturnType<NonNullable<ReturnType<typeof auditQuery>['queryFn']>>
>['items'][number]

/** Drops the filters that are not set, so they stay out of the query string. */
export function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== undefined && value !== ''),
  ) as Partial<T>
}
