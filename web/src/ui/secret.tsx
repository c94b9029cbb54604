/**
 * Secrets shown once (API tokens, backup codes): monospace, grouped for reading, with a copy
 * button. Never stored anywhere but this component's props.
 */
import { useState } from 'react'
import { useI18n } from '../i18n/i18n'
import { announce } from './announce'

/** `ABCD EFGH …` for reading aloud and typing; copying takes the secret without the spaces. */
export function groupForReading(secret: string, size = 4): string {
  return secret.match(new RegExp(`.{1,${size}}`, 'g'))?.join(' ') ?? secret
}

/**
 * `accessibleLabel` names what is copied when the visible label alone would not (a button per table
 * row).
 */
export function CopyButton({
  text,
  label,
  accessibleLabel,
}: {
  text: string
  label: string
  accessibleLabel?: string
}) {
  const { t } = useI18n()
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className="button button-secondary"
      aria-label={accessibleLabel}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text)
          setCopied(true)
          announce(t('common.copied'))
          window.setTimeout(() => setCopied(false), 2000)
        } catch {
          announce(t('common.copyFailed'))
        }
      }}
    >
      {copied ? t('common.copied') : label}
    </button>
  )
}
