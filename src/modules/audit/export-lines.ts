/**
 * The entry lines of a verifiable export (verifiable-export.ts), checked in bulk for the offline
 * `verify` (export-verifier.ts): each line's shape, its stated leaf hash in canonical
 * base64, the RFC 9162 leaf hash SHA-256(0x00 ‖ leaf) of its event's text compared with it, and the
 * leaves a redaction record names. The Merkle tree itself is built in leaf order by the caller;
 * this is the work that can be split, a chunk of lines at a time, across worker threads.
 *
 * The module runs as such a worker itself (`new Worker(CHECKER_URL)`), from the built files and
 * from the sources alike: it imports nothing but Node's own modules and uses only TypeScript that
 * Node can strip, so Node loads the `.ts` file as it is. That is also why it hashes a leaf itself
 * rather than through lib/merkle.ts (a test holds the two equal).
 */
import { hash } from 'node:crypto'
import { isMainThread, parentPort, workerData } from 'node:worker_threads'

export const HASH_BYTES = 32
const LF = 0x0a
const REDACT_MARK = '"action":"audit.redact"'
const HASH = '[A-Za-z0-9+/]{43}='
/**
 * An entry line exactly as the export writes it, the event last and verbatim:
 * `{"leaf_index":N,"leaf_hash":"…",["inclusion_proof":[…],]"event":{…}}` or `…,"redacted":true}`.
 */
const LINE = new RegExp(
  `^\\{"leaf_index":(0|[1-9][0-9]{0,15}),"leaf_hash":"(${HASH})",(?:"redacted":true\\}$|(?:"inclusion_proof":\\[((?:"${HASH}")(?:,"${HASH}")*)?\\],)?"event":(\\{.*\\})\\}$)`,
)

export interface ParsedLine {
  index: number
  leafHash: Buffer
  /** The event's leaf, verbatim (canonical JSON); undefined for a redacted entry. */
  leafText?: string
  inclusionProof?: Buffer[]
}

/**
 * Decoding skips characters outside the alphabet, so re-encoding to the same text proves the
 * canonical form.
 */
function canonicalHash(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64')
  return bytes.toString('base64') === text ? bytes : null
}

export function leafHashOf(leafText: string): Buffer {
  return hash('sha256', `\u0000${leafText}`, 'buffer')
}

/** An export line's parts, or why the line is not one. */
export function parseLine(text: string): ParsedLine | string {
  // JSON and line readers forgive a trailing space or a CR, which would let a changed byte pass.
  if (!text.startsWith('{') || !text.endsWith('}')) return 'the line is not exactly one JSON object'
  const match = LINE.exec(text)
  if (match === null) return 'the line is not an entry of a verifiable export'
  const [, index, stated, proof, leafText] = match
  const leafHash = canonicalHash(stated!)
  if (leafHash === null) return 'the line has no valid leaf hash'
  let inclusionProof: Buffer[] | undefined
  if (proof !== undefined) {
    inclusionProof = []
    for (const text of proof.slice(1, -1).split('","')) {
      const node = canonicalHash(text)
      if (node === null) return 'the line has a malformed inclusion proof'
      inclusionProof.push(node)
    }
  }
  return {
    index: Number(index),
    leafHash,
    ...(leafText !== undefined && { leafText }),
    ...(inclusionProof !== undefined && { inclusionProof }),
  }
}

/**
 * What a checked line is: an event whose leaf hash is the stated one, a redacted entry, or an event
 * that is not.
 */
export const LINE_EVENT = 0
export const LINE_REDACTED = 1
export const LINE_EDITED = 2

/** The leaves a redaction record's metadata names; null when the record cannot be read. */
function redactedLeaves(leafText: string): number[] | null {
  try {
    const event = JSON.parse(leafText) as {
      action?: unknown
      metadata?: { leaves?: unknown } | null
    }
    if (event.action !== 'audit.redact') return []
    const leaves = event.metadata?.leaves
    return Array.isArray(leaves) ? leaves.filter((n): n is number => Number.isSafeInteger(n)) : []
  } catch {
    return null
  }
}

/**
 * A chunk's lines, checked. Made of typed arrays so that a worker hands it over without copying:
 * line i has leaf index `indexes[i]`, stated leaf hash `hashes[32i…32i+32)` and kind `kinds[i]`.
 */
export interface CheckedLines {
  count: number
  indexes: Float64Array<ArrayBuffer>
  hashes: Uint8Array<ArrayBuffer>
  kinds: Uint8Array<ArrayBuffer>
  /**
   * The lines (by position) that are redaction records, with the leaves each names (null:
   * unreadable).
   */
  redactions: Array<[number, number[] | null]>
  /** The line after the last checked one, when it is not an entry: why (checking stops there). */
  malformed: string | null
}

/**
 * Checks the lines of `chunk`, UTF-8 text of whole lines each ending in LF. Text after the last LF
 * is the file's end in the middle of a line. Stops at the first line that is not an entry.
 */
export function checkLines(chunk: Uint8Array): CheckedLines {
  let lines = 0
  for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) lines++
  const checked: CheckedLines = {
    count: 0,
    indexes: new Float64Array(lines),
    hashes: new Uint8Array(lines * HASH_BYTES),
    kinds: new Uint8Array(lines),
    redactions: [],
    malformed: null,
  }
  for (const line of parsedLines(chunk)) {
    if (typeof line === 'string') {
      checked.malformed = line
      return checked
    }
    const i = checked.count++
    checked.indexes[i] = line.index
    checked.hashes.set(line.leafHash, i * HASH_BYTES)
    if (line.leafText === undefined) {
      checked.kinds[i] = LINE_REDACTED
      continue
    }
    checked.kinds[i] = leafHashOf(line.leafText).equals(line.leafHash) ? LINE_EVENT : LINE_EDITED
    if (line.leafText.includes(REDACT_MARK))
      checked.redactions.push([i, redactedLeaves(line.leafText)])
  }
  return checked
}

/**
 * The lines of `chunk` (UTF-8 text of whole lines, each ending in LF), parsed in order; text after
 * the last LF is the file's end in the middle of a line, yielded as why it is malformed.
 */
export function* parsedLines(chunk: Uint8Array): Generator<ParsedLine | string> {
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8')
  let start = 0
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    yield parseLine(text.slice(start, end))
    start = end + 1
  }
  if (start < text.length) yield 'the file ends in the middle of a line'
}

/**
 * This module as a worker thread's code: `new Worker(CHECKER_URL, { workerData: CHECKER_ROLE })`.
 */
export const CHECKER_URL = new URL(import.meta.url)
export const CHECKER_ROLE = 'switchboard:export-lines'

if (!isMainThread && workerData === CHECKER_ROLE) {
  const port = parentPort!
  port.on('message', (chunk: Uint8Array) => {
    const checked = checkLines(chunk)
    port.postMessage(checked, [checked.indexes.buffer, checked.hashes.buffer, checked.kinds.buffer])
  })
}
