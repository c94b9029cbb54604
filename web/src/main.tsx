/**
 * The console's entry: language, router. The sign-in pages are part of this first chunk; the
 * signed-in shell, its query cache and every account area load on demand (see router.tsx). The
 * browser's language loads before the first render, so no page shows untranslated keys.
 */
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { I18nProvider, loadLanguage, pickLanguage } from './i18n/i18n'
import { ENROLLMENT_PAGE, setEnrollmentNavigation } from './policy/enrollment'
import { createConsoleRouter } from './router'
import './styles.css'

const router = createConsoleRouter()
setEnrollmentNavigation(() => void router.navigate({ to: ENROLLMENT_PAGE }))

// One language only: both catalogues hold the same keys (a test says so), so no fallback is needed.
void loadLanguage(pickLanguage(navigator.language)).finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <I18nProvider>
        <RouterProvider router={router} />
      </I18nProvider>
    </StrictMode>,
  ),
)
