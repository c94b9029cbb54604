/**
 * The signed-in console's query cache. It loads with the signed-in frame, the landing and
 * the recovery pages, never with the sign-in page (whose size budget TanStack Query would break);
 * the router reaches it through `loadQueryClient` (router-context.ts).
 */
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query'
import { ApiError } from './errors'
import { followEnrollmentRequirement } from '../policy/enrollment'

// A 403 MFA_ENROLLMENT_REQUIRED anywhere takes the person to enrolment.
const onError = (error: unknown) => followEnrollmentRequirement(error, queryClient)

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // A 4xx is an answer, not a glitch: only retry what may pass on a second try.
      retry: (failures, error) =>
        failures < 2 && !(error instanceof ApiError && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
})
