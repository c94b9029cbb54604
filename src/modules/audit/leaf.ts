/**
 * An audit event as a leaf of the audit Merkle tree: its RFC 8785 canonical JSON —
 * every column but the leaf number, metadata as the object it encodes. The same bytes are made
 * when the event is written, when the database is checked and when an export is verified, so this
 * form is frozen (migration 0025 makes it for the events written before it).
 */
import canonicalize from 'canonicalize'
import type { Selectable } from 'kysely'
import type { AuditEventsTable } from '../../db/schema.js'
import { leafHashOfText } from '../../lib/merkle.js'

export interface LeafEvent {
  id: string
  at: string
  actor_id: string | null
  actor_email: string | null
  action: string
  target_type: string | null
  target_id: string | null
  ip: string | null
  user_agent: string | null
  subject_user_id: string | null
  metadata: Record<string, unknown>
}

export type StoredEvent = Omit<Selectable<AuditEventsTable>, 'leaf_index'>

export const LEAF_COLUMNS = [
  'id',
  'at',
  'actor_id',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'ip',
  'user_agent',
  'subject_user_id',
  'metadata',
] as const

/** The event a stored row holds; throws when its metadata is not a JSON object. */
export function leafEventOf(row: StoredEvent): LeafEvent {
  const metadata: unknown = JSON.parse(row.metadata)
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new Error('metadata is not a JSON object')
  return { ...row, metadata: metadata as Record<string, unknown> }
}

/** The leaf's fields in RFC 8785's order (UTF-16 code units), each with what precedes its value. */
const SORTED_COLUMNS = [...LEAF_COLUMNS].sort()
const MEMBER_HEADS = SORTED_COLUMNS.map((column, i) => `${i === 0 ? '{' : ','}"${column}":`)

/**
 * The leaf as text: the canonical JSON of exactly the leaf's fields. The fields' names and order
 * are fixed, so only the metadata goes through the canonicalizer; a field that is neither a string
 * nor null (no stored row has one) takes the canonicalizer's whole path. Every audited write and
 * every check of the log makes this text for each event
 * (docs/decisions/0068-leaf-text-field-by-field.md); a property test holds it equal to the
 * canonicalizer's own output.
 */
export function leafText(event: LeafEvent): string {
  let text = ''
  for (let i = 0; i < SORTED_COLUMNS.length; i++) {
    const column = SORTED_COLUMNS[i]!
    const value = event[column]
    if (column === 'metadata') {
      const json = canonicalize(value)
      if (json === undefined) return canonicalLeaf(event)
      text += MEMBER_HEADS[i]! + json
    } else if (value === null) text += `${MEMBER_HEADS[i]!}null`
    else if (typeof value === 'string' && value.isWellFormed())
      text += MEMBER_HEADS[i]! + JSON.stringify(value)
    else return canonicalLeaf(event)
  }
  return `${text}}`
}

/** The canonicalizer's own path, for any value. */
function canonicalLeaf(event: LeafEvent): string {
  const picked: Record<string, unknown> = {}
  for (const column of LEAF_COLUMNS) picked[column] = event[column]
  return canonicalize(picked)!
}

/** The leaf's bytes (UTF-8 of leafText). */
export function leafBytes(event: LeafEvent): Buffer {
  return Buffer.from(leafText(event), 'utf8')
}

/** SHA-256(0x00 ‖ leaf), RFC 9162 §2.1.1. */
export function eventLeafHash(event: LeafEvent): Buffer {
  return leafHashOfText(leafText(event))
}
