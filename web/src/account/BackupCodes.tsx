/**
 * The backup codes, shown once in a dialog where the person is: copy, download as .txt, print, and
 * a warning. It closes only after "I have stored these codes".
 */
import { useI18n } from '../i18n/i18n'
import { RevealDialog } from '../ui/reveal-dialog'

export function BackupCodesPanel({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useI18n()
  const text = `${t('backup.fileHeading')}\n\n${codes.join('\n')}\n`
  return (
    <RevealDialog
      title={t('backup.title')}
      warning={t('backup.warning')}
      copy={{ text: codes.join('\n'), label: t('backup.copy') }}
      download={{
        text,
        filename: 'switchboard-backup-codes.txt',
        label: t('backup.download'),
      }}
      extraActions={
        <button type="button" className="button button-secondary" onClick={() => window.print()}>
          {t('backup.print')}
        </button>
      }
      savedLabel={t('backup.stored')}
      doneLabel={t('backup.done')}
      onDone={onDone}
    >
      <ol className="backup-codes" data-testid="backup-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
    </RevealDialog>
  )
}
