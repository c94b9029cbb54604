/**
 * Secrets shown once (API tokens, backup codes): monospace, grouped for reading, with a copy button.
 * Never stored anywhere but this component's props.
 */
import { useState } from 'react'
import { useI18n } from '../i18n/i18n'
import { announce } from './announce'

/** `ABCD EFGH …` for reading aloud and typing; copying takes the secret without the spaces. */
export function groupForReading(secret: string, size = 4): string {
  return secret.match(new RegExp(`.{1,${size}}`, 'g'))?.join(' ') ?? secret
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useI18n()
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className="button button-secondary"
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
