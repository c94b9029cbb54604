/**
 * The audit log's integrity on the audit page — the last check of the database against
 * its signed checkpoints (green when intact, red with the first bad entry when not), a button to
 * check now, and the public verifier key that `switchboard audit verify --key` takes.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { CopyButton } from '../ui/secret'
import { RelativeTime } from '../ui/time'

const integrityKey = ['admin', 'audit', 'integrity']

export function AuditIntegrity() {
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
  if (data === undefined) return null
  const stateClass =
    data.status === 'ok'
      ? 'state state-good'
      : data.status === 'failed'
        ? 'state state-bad'
        : 'state state-weak'
  return (
    <section className="audit-integrity" aria-labelledby="audit-integrity-title">
      <h2 id="audit-integrity-title">{t('admin.audit.integrity.title')}</h2>
      <div
        className={stateClass}
        data-testid="audit-integrity"
        data-status={data.status}
        role="status"
      >
        <strong>{t(`admin.audit.integrity.${data.status}`)}</strong>
        {data.problem !== null && <p className="mono">{data.problem}</p>}
        {data.checked_at !== null && (
          <p>
            {t('admin.audit.integrity.checkedAt')} <RelativeTime iso={data.checked_at} />
            {data.tree_size !== null &&
              ` · ${t('admin.audit.integrity.events', { count: String(data.tree_size) })}`}
          </p>
        )}
      </div>
      <div className="row">
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
      <h3>{t('admin.audit.integrity.key')}</h3>
      <p>{t('admin.audit.integrity.keyHelp')}</p>
      <p className="row">
        <code className="mono verifier-key" data-testid="audit-verifier-key">
          {data.verifier_key}
        </code>
        <CopyButton text={data.verifier_key} label={t('admin.audit.integrity.copyKey')} />
      </p>
    </section>
  )
}
