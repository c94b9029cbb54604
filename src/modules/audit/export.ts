/**
 * The audit log's export: the filtered view, newest first, as CSV (RFC 4180) or JSON
 * Lines. Streamed, never held whole: the rows are read in keyset batches of EXPORT_BATCH and each
 * batch is written before the next is read, so memory stays bounded however long the log is, and
 * the reader's pace sets the writer's (a Readable pulls the next batch only when asked). Other
 * requests get a turn of the event loop after each batch (lib/event-loop-turns.ts).
 */
import { Readable } from 'node:stream'
import type { Deps } from '../../deps.js'
import { withTurns } from '../../lib/event-loop-turns.js'
import type { CursorKey } from '../../lib/pagination.js'
import { listAuditEvents, type AuditFilter } from './repo.js'
import type { AuditEventView, AuditExportFormat, AuditExportQuery } from './schemas.js'
import { verifiableExportLines } from './verifiable-export.js'
import { auditFilterOf, recordAudit, toAuditEventView, type Actor } from './service.js'
import type { RequestContext } from '../../identity/caller.js'

export const EXPORT_BATCH = 500

const CSV_COLUMNS = [
  'id',
  'at',
  'actor_id',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'ip',
  'metadata',
] as const

/**
 * One CSV cell. A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return,
 * which some read past) as a formula (CSV injection, OWASP): such a cell gets a leading apostrophe,
 * which spreadsheets show as text. Every cell is quoted, quotes doubled (RFC 4180 §2.5–2.7).
 */
export function csvCell(value: string | null): string {
  if (value === null) return ''
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return `"${text.replace(/"/g, '""')}"`
}

export function csvLine(event: AuditEventView): string {
  return `${CSV_COLUMNS.map((column) => csvCell(column === 'metadata' ? JSON.stringify(event.metadata) : event[column])).join(',')}\r\n`
}

/** Every event the filter selects, newest first, one batch in memory at a time. */
async function* eventsOf(deps: Deps, filter: AuditFilter): AsyncGenerator<AuditEventView> {
  let after: CursorKey | null = null
  for (;;) {
    const rows = await listAuditEvents(deps.db, filter, { limit: EXPORT_BATCH, after })
    const batch = rows.slice(0, EXPORT_BATCH)
    for (const row of batch) yield toAuditEventView(row)
    const last = batch.at(-1)
    if (rows.length <= EXPORT_BATCH || last === undefined) return
    after = [last.at, last.id]
  }
}

async function* linesOf(
  deps: Deps,
  filter: AuditFilter,
  format: Exclude<AuditExportFormat, 'verifiable'>,
): AsyncGenerator<string> {
  if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\r\n`
  let lines: string[] = []
  for await (const event of eventsOf(deps, filter)) {
    lines.push(format === 'csv' ? csvLine(event) : `${JSON.stringify(event)}\n`)
    // Written in chunks of a batch, not line by line: fewer, larger writes.
    if (lines.length === EXPORT_BATCH) {
      yield lines.join('')
      lines = []
    }
  }
  if (lines.length > 0) yield lines.join('')
}

export interface AuditExport {
  filename: string
  body: Readable
}

/**
 * Records the export (who took a copy of the trail, with which filters), then answers the stream.
 * The event is written before the first row is read, so the export contains it when it matches.
 */
export async function exportAuditLog(
  deps: Deps,
  actor: Actor,
  query: AuditExportQuery,
  ctx: RequestContext,
): Promise<AuditExport> {
  const filter = auditFilterOf(query)
  const { format, ...filters } = query
  await recordAudit(deps.db, deps.clock, ctx, {
    action: 'audit.export',
    actor,
    metadata: { format, filters },
  })
  const stamp = deps.clock
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-')
  if (format === 'verifiable') {
    return {
      filename: `switchboard-audit-${stamp}.verifiable.jsonl`,
      body: Readable.from(withTurns(await verifiableExportLines(deps, filter, filters))),
    }
  }
  return {
    filename: `switchboard-audit-${stamp}.${format}`,
    body: Readable.from(withTurns(linesOf(deps, filter, format))),
  }
}
