/** The not-found page's content, and the frame a status page has outside the console's. */
import { Link } from '@tanstack/react-router'
import { useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'

export function StatusFrame({ children }: { children: React.ReactNode }) {
  return (
    <main id="main" className="status-frame">
      {children}
    </main>
  )
}

/** The not-found page's content; `framed`: inside the console's frame, whose <main> it is in. */
export function NotFoundContent({ framed = false }: { framed?: boolean }) {
  const { t } = useI18n()
  const page = (
    <Page title={t('status.notFound.title')} description={t('status.notFound.text')}>
      <Link to="/" className="button button-secondary">
        {t('status.home')}
      </Link>
    </Page>
  )
  return framed ? page : <StatusFrame>{page}</StatusFrame>
}
