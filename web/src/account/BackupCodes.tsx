/**
 * The backup codes, shown once: copy, download as .txt, print, and a warning. The panel closes
 * only after "I have stored these codes".
 */
import { useId, useState } from 'react'
import { useI18n } from '../i18n/i18n'
import { CopyButton } from '../ui/secret'

export function BackupCodesPanel({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useI18n()
  const [stored, setStored] = useState(false)
  const checkboxId = useId()
  const text = `${t('backup.fileHeading')}\n\n${codes.join('\n')}\n`
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }))
    const anchor = document.createElement('a')
    anchor.href = url
    anchor.download = 'switchboard-backup-codes.txt'
    anchor.click()
    window.setTimeout(() => URL.revokeObjectURL(url), 1000)
  }
  return (
    <section className="reveal printable" aria-labelledby="backup-heading">
      <h2 id="backup-heading">{t('backup.title')}</h2>
      <p className="warning">{t('backup.warning')}</p>
      <ol className="backup-codes" data-testid="backup-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="row no-print">
        <CopyButton text={codes.join('\n')} label={t('backup.copy')} />
        <button type="button" className="button button-secondary" onClick={download}>
          {t('backup.download')}
        </button>
        <button type="button" className="button button-secondary" onClick={() => window.print()}>
          {t('backup.print')}
        </button>
      </div>
      <div className="checkbox no-print">
        <input
          id={checkboxId}
          type="checkbox"
          checked={stored}
          onChange={(event) => setStored(event.target.checked)}
        />
        <label htmlFor={checkboxId}>{t('backup.stored')}</label>
      </div>
      <button
        type="button"
        className="button button-primary no-print"
        aria-disabled={!stored}
        onClick={() => stored && onDone()}
      >
        {t('backup.done')}
      </button>
    </section>
  )
}
