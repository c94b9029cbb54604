/** How to type `go handbook` in the browser's address bar: `go` as a site-search keyword. */
import { useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'
import { CopyButton } from '../ui/secret'

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
      <section className="section" aria-labelledby="keyword-chrome-heading">
        <h2 id="keyword-chrome-heading">{t('links.keywordChrome')}</h2>
        <ol className="steps">
          <li>{t('links.keywordChrome1')}</li>
          <li>{t('links.keywordChrome2')}</li>
          <li>{t('links.keywordChrome3')}</li>
        </ol>
      </section>
      <section className="section" aria-labelledby="keyword-firefox-heading">
        <h2 id="keyword-firefox-heading">{t('links.keywordFirefox')}</h2>
        <ol className="steps">
          <li>{t('links.keywordFirefox1')}</li>
          <li>{t('links.keywordFirefox2')}</li>
          <li>{t('links.keywordFirefox3')}</li>
        </ol>
      </section>
      <section className="section" aria-labelledby="keyword-use-heading">
        <h2 id="keyword-use-heading">{t('links.keywordUse')}</h2>
        <p>{t('links.keywordUseText')}</p>
      </section>
    </Page>
  )
}
