/**
 * Verifies a verifiable export (verifiable-export.ts) offline, with no database (issue 30): the
 * checkpoint's signature against a verifier key, then every line. A full export must hold every leaf
 * of the checkpoint's tree and rebuild its root; a subset's lines must each carry an inclusion proof
 * that verifies against it. A saved earlier checkpoint (signed by the same key) must be a prefix of
 * the export's tree: with a full export its root is rebuilt from the first leaves. A key other than
 * the export's is accepted when the export's key rotations lead from it to the export's key
 * (key-chain.ts); each checkpoint is then checked with the key in force at its size.
 */
import fs from 'node:fs'
import { leafHashOfText, verifyInclusion } from '../../lib/merkle.js'
import {
  isCanonicalHash,
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  verifyNote,
  type Checkpoint,
  type NoteVerifier,
} from '../../lib/signed-note.js'
import { VERIFIABLE_EXPORT_TYPE, type ExportHeader } from './verifiable-export.js'
import { followRotations, keysAt, signedByAll, type KeyChain } from './key-chain.js'
import { LogVerifier, type Problem, type SignedRoot } from './verify.js'

export interface ExportVerification {
  ok: boolean
  problem: Problem | null
  entries: number
  treeSize: number
  subset: boolean
  /** True when the key came from the export itself (no --key): the signature then proves only self-consistency. */
  keyFromExport: boolean
}

export interface ExportVerifyOptions {
  /** The log's verifier key; without it, the one in the export's header (and the result says so). */
  verifierKey?: string
  /** An earlier checkpoint saved by the reader (signed-note text). */
  savedCheckpoint?: string
}

function readSigned(text: string, verifier: NoteVerifier, what: string): Checkpoint | Problem {
  const note = parseSignedNote(text)
  const checkpoint = note === null ? null : parseCheckpoint(note.text)
  if (note === null || checkpoint === null) return { index: null, kind: 'malformed', detail: `${what} is not a signed checkpoint` }
  if (!verifyNote(note, verifier)) return { index: null, kind: 'bad signature', detail: `${what} is not signed by ${verifier.name}` }
  return checkpoint
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export interface ParsedLine {
  index: number
  leafHash: Buffer
  /** The event's leaf, verbatim (canonical JSON); undefined for a redacted entry. */
  leafText?: string
  inclusionProof?: Buffer[]
}

const HASH = '[A-Za-z0-9+/]{43}='
/**
 * An entry line exactly as the export writes it (verifiable-export.ts), the event last and verbatim:
 * `{"leaf_index":N,"leaf_hash":"…",["inclusion_proof":[…],]"event":{…}}` or `…,"redacted":true}`.
 */
const LINE = new RegExp(
  `^\\{"leaf_index":(0|[1-9][0-9]{0,15}),"leaf_hash":"(${HASH})",(?:"redacted":true\\}$|(?:"inclusion_proof":\\[((?:"${HASH}")(?:,"${HASH}")*)?\\],)?"event":(\\{.*\\})\\}$)`,
)

/** An export line's parts, or why the line is not one. */
function parseLine(text: string): ParsedLine | string {
  const shape = shapeProblem(text)
  if (shape !== null) return shape
  const match = LINE.exec(text)
  if (match === null) return 'the line is not an entry of a verifiable export'
  const [, index, hash, proof, leafText] = match
  // Decoded once and re-encoded: the same text proves the canonical form (as isCanonicalHash does).
  const leafHash = Buffer.from(hash!, 'base64')
  if (leafHash.toString('base64') !== hash) return 'the line has no valid leaf hash'
  const hashes = proof === undefined ? undefined : proof.slice(1, -1).split('","')
  if (hashes !== undefined && !hashes.every(isCanonicalHash)) return 'the line has a malformed inclusion proof'
  return {
    index: Number(index),
    leafHash,
    ...(leafText !== undefined && { leafText }),
    ...(hashes !== undefined && { inclusionProof: hashes.map((h) => Buffer.from(h, 'base64')) }),
  }
}

const UNTERMINATED = '\u0000unterminated:'

/**
 * The file's lines, split at LF only, each checked to be exactly a JSON object with nothing around
 * it: JSON and line readers forgive a trailing space or a CR, which would let a changed byte pass.
 * A last line without its newline is yielded as malformed. Yielded in batches, one per 1 MiB read:
 * an await per line cost a tenth of a million-line check.
 */
async function* lineBatchesOf(file: string): AsyncGenerator<string[]> {
  let rest = ''
  for await (const chunk of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = rest + (chunk as string)
    const batch: string[] = []
    let start = 0
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      batch.push(text.slice(start, end))
      start = end + 1
    }
    rest = text.slice(start)
    if (batch.length > 0) yield batch
  }
  if (rest !== '') yield [`${UNTERMINATED}${rest}`]
}

/** The first line of the batches, and the batches of every line after it. */
async function splitFirst(batches: AsyncGenerator<string[]>): Promise<{ first: string | undefined; rest: AsyncIterable<string[]> }> {
  const head = await batches.next()
  if (head.done === true) return { first: undefined, rest: batches }
  const [first, ...following] = head.value
  async function* rest(): AsyncGenerator<string[]> {
    if (following.length > 0) yield following
    yield* batches
  }
  return { first, rest: rest() }
}

function shapeProblem(line: string): string | null {
  if (line.startsWith(UNTERMINATED)) return 'the file ends in the middle of a line'
  if (!line.startsWith('{') || !line.endsWith('}')) return 'the line is not exactly one JSON object'
  return null
}

function result(problem: Problem | null, fields: Omit<ExportVerification, 'ok' | 'problem'>): ExportVerification {
  return { ok: problem === null, problem, ...fields }
}

export async function verifyExportFile(file: string, options: ExportVerifyOptions = {}): Promise<ExportVerification> {
  const batches = lineBatchesOf(file)
  const fields = { entries: 0, treeSize: 0, subset: false, keyFromExport: options.verifierKey === undefined }
  try {
    const { first, rest: lines } = await splitFirst(batches)
    let header: ExportHeader
    try {
      if (first === undefined || shapeProblem(first) !== null) throw new Error('no header')
      header = JSON.parse(first) as ExportHeader
    } catch {
      return result({ index: null, kind: 'malformed', detail: 'the first line is not the export header' }, fields)
    }
    if (
      !isObject(header) ||
      header.type !== VERIFIABLE_EXPORT_TYPE ||
      typeof header.checkpoint !== 'string' ||
      typeof header.verifier_key !== 'string'
    ) {
      return result({ index: null, kind: 'malformed', detail: 'the first line is not the export header' }, fields)
    }
    const headerKey = header.verifier_key.trim()
    const trusted = options.verifierKey?.trim() ?? headerKey
    const verifier = parseVerifierKey(headerKey)
    if (verifier === null || parseVerifierKey(trusted) === null) {
      return result({ index: null, kind: 'malformed', detail: 'the verifier key is not a signed-note Ed25519 key' }, fields)
    }
    if (trusted !== headerKey && header.key_rotations === undefined) {
      return result({ index: null, kind: 'bad signature', detail: 'the export names another verifier key than the one given' }, fields)
    }
    const checkpoint = readSigned(header.checkpoint, verifier, "the export's checkpoint")
    if ('kind' in checkpoint) return result(checkpoint, fields)
    // The key that signed the checkpoint must be the one given, or be reached from it through the
    // export's key rotations, each signed by its old and its new key.
    const chain: KeyChain | Problem =
      header.key_rotations === undefined
        ? { keys: [headerKey], rotations: [] }
        : followRotations(header.key_rotations, trusted, { ...checkpoint, key: headerKey })
    if ('kind' in chain) return result(chain, fields)
    fields.treeSize = checkpoint.size
    fields.subset = header.subset
    if (header.tree_size !== checkpoint.size) {
      return result({ index: null, kind: 'edited', detail: `the header says ${header.tree_size} leaves, its checkpoint ${checkpoint.size}` }, fields)
    }

    const roots: SignedRoot[] = [{ size: checkpoint.size, root: checkpoint.root, label: "the export's checkpoint" }]
    if (options.savedCheckpoint !== undefined) {
      const note = parseSignedNote(options.savedCheckpoint)
      const saved = note === null ? null : parseCheckpoint(note.text)
      if (saved === null) return result({ index: null, kind: 'malformed', detail: 'the saved checkpoint is not a signed checkpoint' }, fields)
      // Signed by the key in force at its size (both keys at a rotation's size).
      if (!signedByAll(options.savedCheckpoint, keysAt(chain, saved.size))) {
        return result({ index: null, kind: 'bad signature', detail: "the saved checkpoint is not signed by the log's key for its size" }, fields)
      }
      if (saved.origin !== checkpoint.origin) {
        return result({ index: null, kind: 'not consistent', detail: `the saved checkpoint is of another log (${saved.origin})` }, fields)
      }
      if (saved.size > checkpoint.size) {
        return result(
          {
            index: null,
            kind: 'not consistent',
            detail: `the saved checkpoint (${saved.size} leaves) is newer than the export (${checkpoint.size})`,
          },
          fields,
        )
      }
      if (fields.subset) {
        return result(
          { index: null, kind: 'malformed', detail: 'a saved checkpoint can be checked against a full export only (without filters)' },
          fields,
        )
      }
      roots.push({ size: saved.size, root: saved.root, label: 'the saved checkpoint', mismatch: 'not consistent' })
    }

    return fields.subset ? await verifySubset(lines, checkpoint, fields) : await verifyFull(lines, checkpoint, roots, fields)
  } finally {
    await batches.return(undefined)
  }
}

async function verifyFull(
  lines: AsyncIterable<string[]>,
  checkpoint: Checkpoint,
  roots: SignedRoot[],
  fields: Omit<ExportVerification, 'ok' | 'problem'>,
): Promise<ExportVerification> {
  const verifier = new LogVerifier(checkpoint.size, roots)
  reading: for await (const batch of lines) {
    for (const text of batch) {
      if (verifier.problem !== null) break reading
      const line = parseLine(text)
      if (typeof line === 'string') {
        verifier.fail({ index: verifier.size, kind: 'malformed', detail: line })
        break reading
      }
      fields.entries++
      verifier.add({ index: line.index, statedHash: line.leafHash, event: null, ...(line.leafText !== undefined && { leafText: line.leafText }) })
    }
  }
  return result(verifier.finish(), fields)
}

async function verifySubset(
  lines: AsyncIterable<string[]>,
  checkpoint: Checkpoint,
  fields: Omit<ExportVerification, 'ok' | 'problem'>,
): Promise<ExportVerification> {
  let previous = -1
  for await (const batch of lines)
    for (const text of batch) {
      const line = parseLine(text)
      if (typeof line === 'string') return result({ index: previous + 1, kind: 'malformed', detail: line }, fields)
      fields.entries++
      const index = line.index
      if (index <= previous) return result({ index, kind: 'reordered', detail: `leaf ${index} comes after leaf ${previous}` }, fields)
      if (line.leafText === undefined) return result({ index, kind: 'malformed', detail: 'a filtered export holds events only' }, fields)
      const hash = leafHashOfText(line.leafText)
      if (!hash.equals(line.leafHash)) return result({ index, kind: 'edited', detail: 'the event does not match its leaf hash' }, fields)
      if (!verifyInclusion(index, checkpoint.size, hash, line.inclusionProof ?? [], checkpoint.root)) {
        return result({ index, kind: 'edited', detail: "its inclusion proof does not lead to the checkpoint's root" }, fields)
      }
      previous = index
    }
  return result(null, fields)
}
