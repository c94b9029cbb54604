/**
 * The signed-in person's language and theme, applied on every page (signed-out pages too, when a
 * session exists) on load and whenever the profile changes them. Without a session: the
 * browser's language and the system's theme.
 */
import { useQuery } from '@tanstack/react-query'
import { Outlet } from '@tanstack/react-router'
import { useEffect } from 'react'
import { meQuery } from '../api/queries'
import { pickLanguage, useI18n } from '../i18n/i18n'
import { applyTheme } from '../theme'

export function RootLayout() {
  const { setLanguage } = useI18n()
  const me = useQuery({ ...meQuery, retry: false })
  const user = me.data
  useEffect(() => {
    setLanguage(pickLanguage(user?.language ?? navigator.language))
    applyTheme(user?.theme ?? 'auto')
  }, [user?.language, user?.theme, setLanguage])
  return <Outlet />
}
