/**
 * Wraps the pages that use the query cache (the signed-in frame, the landing and recovery pages)
 * and applies the signed-in person's language and theme there, on load and whenever the profile
 * changes them. The sign-in pages have neither (their size budget): they show the
 * browser's language and the system's theme.
 */
import { QueryClientProvider, useQuery } from '@tanstack/react-query'
import { useEffect, type ReactNode } from 'react'
import { pickLanguage, useI18n } from '../i18n/i18n'
import { applyTheme } from '../theme'
import { meQuery } from './queries'
import { queryClient } from './query-client'

function SignedInPreferences() {
  const { setLanguage } = useI18n()
  // No retry and no second request on mount: a signed-out visitor is asked once.
  const me = useQuery({ ...meQuery, retry: false, retryOnMount: false })
  const user = me.data
  useEffect(() => {
    setLanguage(pickLanguage(user?.language ?? navigator.language))
    applyTheme(user?.theme ?? 'auto')
  }, [user?.language, user?.theme, setLanguage])
  return null
}

/**
 * For pages outside the signed-in frame (not found, errors) while a session exists: the same
 * preferences, loaded only then (router.tsx), so a signed-out sign-in page never loads the cache.
 */
export function RootPreferences() {
  return (
    <QueryClientProvider client={queryClient}>
      <SignedInPreferences />
    </QueryClientProvider>
  )
}

export function QueryRoot({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <SignedInPreferences />
      {children}
    </QueryClientProvider>
  )
}
