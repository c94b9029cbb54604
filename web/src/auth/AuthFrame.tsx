/** The frame of the signed-out pages: the product's name and one centred card. */
import type { ReactNode } from 'react'
import { useI18n } from '../i18n/i18n'

export function AuthFrame({ children }: { children: ReactNode }) {
  const { t } = useI18n()
  return (
    <div className="auth-frame">
      <header className="auth-brand">
        <span className="brand-mark" aria-hidden="true" />
        <span>{t('app.name')}</span>
      </header>
      <main id="main" className="auth-card">
        {children}
      </main>
    </div>
  )
}
