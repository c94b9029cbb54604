/** Queries shared by several areas. */
import { queryOptions } from '@tanstack/react-query'
import { client, unwrap } from './client'

export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: () => unwrap(client.GET('/api/users/me')),
  staleTime: 30_000,
})

/**
 * Two-factor status; `enrollment_required` says the instance policy restricts this session to
 * enrolment.
 */
export const mfaStatusQuery = queryOptions({
  queryKey: ['mfa-status'],
  queryFn: () => unwrap(client.GET('/api/auth/mfa/status')),
})

export const setupQuery = queryOptions({
  queryKey: ['setup'],
  queryFn: () => unwrap(client.GET('/api/auth/setup')),
})

export const providersQuery = queryOptions({
  queryKey: ['providers'],
  queryFn: () => unwrap(client.GET('/api/auth/providers', { params: { query: { limit: 100 } } })),
})

export type User = Awaited<ReturnType<NonNullable<typeof meQuery.queryFn>>>
