/** Password recovery: whether a link can be mailed on this instance. */
import { queryOptions } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'

export const resetAvailabilityQuery = queryOptions({
  queryKey: ['password-reset', 'availability'],
  queryFn: () => unwrap(client.GET('/api/auth/password-reset')),
  staleTime: 30_000,
})
