/**
 * The audit log's integrity on the audit page — the last check of the database against
 * its signed checkpoints (green when intact, red with the first bad entry when not), a button to
 * check now, and the public verifier key that `switchboard audit verify --key` takes (folded: it is
 * looked up, not read every visit).
 *
 * A check older than the newest event shown does not speak for it: the page then checks on
 * opening, and says so while it does, instead of "intact" over a count that leaves events out.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { CopyButton } from '../ui/secret'
import { RelativeTime } from '../ui/time'

const integrityKey = ['admin', 'audit', 'integrity']

/**
 * `newestAt`: the newest event the page shows (null: none to judge the check by; undefined: not
 * known yet, so no result is shown).
 */
export function AuditIntegrity({ newestAt }: { newestAt: string | null | undefined }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const integrity = useQuery({
    queryKey: integrityKey,
    queryFn: () => unwrap(client.GET('/api/admin/audit-log/integrity')),
  })
  const check = useMutation({
    mutationFn: () => unwrap(client.POST('/api/admin/audit-log/integrity')),
    onSuccess: (data) => {
      queryClient.setQueryData(integrityKey, data)
      announce(t(`admin.audit.integrity.${data.status}`))
    },
  })
  const data = integrity.data
  // The last check predates an event on the page (or there was none): it covers less than shown.
  const stale =
    data !== undefined &&
    typeof newestAt === 'string' &&
    (data.checked_at === null || Date.parse(data.checked_at) < Date.parse(newestAt))
  const checkedOnOpening = useRef(false)
  useEffect(() => {
    if (!stale || checkedOnOpening.current) return
    checkedOnOpening.current = true
    check.mutate()
  }, [stale, check])
  if (data === undefined || newestAt === undefined) return null
  // While stale, the earlier result is not shown as the log's state.
  const status = stale ? (check.isPending ? 'checking' : 'stale') : data.status
  const stateClass =
    status === 'ok' ? 'state state-good' : status === 'failed' ? 'state state-bad' : 'state'
  return (
    <section className="audit-integrity" aria-labelledby="audit-integrity-title">
      <h2 id="audit-integrity-title" className="visually-hidden">
        {t('admin.audit.integrity.title')}
      </h2>
      <div className="audit-integrity-row">
        <div
          className={stateClass}
          data-testid="audit-integrity"
          data-status={status}
          role="status"
        >
          <strong>{t(`admin.audit.integrity.${status}`)}</strong>
          {!stale && data.problem !== null && <p className="mono">{data.problem}</p>}
          {!stale && data.checked_at !== null && (
            <p>
              {t('admin.audit.integrity.checkedAt')} <RelativeTime iso={data.checked_at} />
              {data.tree_size !== null &&
                ` · ${t('admin.audit.integrity.events', { count: data.tree_size })}`}
            </p>
          )}
        </div>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => check.mutate()}
          disabled={check.isPending}
          data-testid="audit-check"
        >
          {check.isPending ? t('common.working') : t('admin.audit.integrity.check')}
        </button>
      </div>
      <details className="audit-key">
        <summary>{t('admin.audit.integrity.key')}</summary>
        <p>{t('admin.audit.integrity.keyHelp')}</p>
        <p className="row">
          <code className="mono verifier-key" data-testid="audit-verifier-key">
            {data.verifier_key}
          </code>
          <CopyButton text={data.verifier_key} label={t('admin.audit.integrity.copyKey')} />
        </p>
      </details>
    </section>
  )
}
