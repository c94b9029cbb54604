/**
 * The console's entry: query cache, language, router. The sign-in pages are part of this first
 * chunk; the signed-in shell and every account area load on demand (see router.tsx).
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiError } from './api/errors'
import { I18nProvider } from './i18n/i18n'
import { ENROLLMENT_PAGE, followEnrollmentRequirement } from './policy/enrollment'
import { createConsoleRouter } from './router'
import './styles.css'

// Issue 14: a 403 MFA_ENROLLMENT_REQUIRED anywhere takes the person to enrolment.
const onError = (error: unknown) => followEnrollmentRequirement(error, queryClient, () => void router.navigate({ to: ENROLLMENT_PAGE }))

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // A 4xx is an answer, not a glitch: only retry what may pass on a second try.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
})

const router = createConsoleRouter(queryClient)

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <RouterProvider router={router} />
      </I18nProvider>
    </QueryClientProvider>
  </StrictMode>,
)
