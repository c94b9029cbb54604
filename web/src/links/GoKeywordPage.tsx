/** How to type `go handbook` in the browser's address bar: `go` as a site-search keyword. */
import { useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'
import { CopyButton } from '../ui/secret'

/**
 * Catalogue keys links.keyword<Browser> and links.keyword<Browser>1…3 (Safari has no site-search
 * keywords).
 */
const BROWSERS = ['Chrome', 'Firefox'] as const

export function GoKeywordPage() {
  const { t } = useI18n()
  const template = `${window.location.origin}/go/%s`
  return (
    <Page title={t('links.keywordTitle')} description={t('links.keywordDescription')} narrow>
      <section className="section" aria-labelledby="keyword-url-heading">
        <h2 id="keyword-url-heading">{t('links.keywordUrlHeading')}</h2>
        <p>{t('links.keywordUrlText')}</p>
        <p>
          <code className="secret" data-testid="keyword-url">
            {template}
          </code>
        </p>
        <CopyButton text={template} label={t('links.keywordCopy')} />
      </section>
      {BROWSERS.map((browser) => (
        <section key={browser} className="section" aria-labelledby={`keyword-${browser}-heading`}>
          <h2 id={`keyword-${browser}-heading`}>{t(`links.keyword${browser}`)}</h2>
          <ol className="steps">
            {[1, 2, 3].map((step) => (
              <li key={step}>{t(`links.keyword${browser}${step}`)}</li>
            ))}
          </ol>
        </section>
      ))}
      <section className="section" aria-labelledby="keyword-use-heading">
        <h2 id="keyword-use-heading">{t('links.keywordUse')}</h2>
        <p>{t('links.keywordUseText')}</p>
      </section>
    </Page>
  )
}
