/**
 * Verifies a verifiable export (verifiable-export.ts) offline, with no database: the
 * checkpoint's signature against a verifier key, then every line. A full export must hold every
 * leaf of the checkpoint's tree and rebuild its root; a subset's lines must each carry an inclusion
 * proof that verifies against it. A saved earlier checkpoint (signed by the same key) must be a
 * prefix of the export's tree: with a full export its root is rebuilt from the first leaves. A key
 * other than the export's is accepted when the export's key rotations lead from it to the export's
 * key (key-chain.ts); each checkpoint is then checked with the key in force at its size.
 *
 * A full export's lines are checked (export-lines.ts) a 1 MiB chunk at a time, on worker threads
 * when the file is large, while this thread adds their leaf hashes to the tree in the file's order.
 */
import fs from 'node:fs'
import os from 'node:os'
import { Worker } from 'node:worker_threads'
import { verifyInclusion } from '../../lib/merkle.js'
import {
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  verifyNote,
  type Checkpoint,
  type NoteVerifier,
} from '../../lib/signed-note.js'
import { VERIFIABLE_EXPORT_TYPE, type ExportHeader } from './verifiable-export.js'
import {
  CHECKER_ROLE,
  CHECKER_URL,
  HASH_BYTES,
  LINE_EVENT,
  LINE_REDACTED,
  checkLines,
  leafHashOf,
  parsedLines,
  type CheckedLines,
  type ParsedLine,
} from './export-lines.js'
import { followRotations, keysAt, signedByAll, type KeyChain } from './key-chain.js'
import { LogVerifier, type Problem, type SignedRoot } from './verify.js'

export interface ExportVerification {
  ok: boolean
  problem: Problem | null
  entries: number
  treeSize: number
  subset: boolean
  /**
   * True when the key came from the export itself (no --key): the signature then proves only
   * self-consistency.
   */
  keyFromExport: boolean
}

export interface ExportVerifyOptions {
  /**
   * The log's verifier key; without it, the one in the export's header (and the result says so).
   */
  verifierKey?: string
  /** An earlier checkpoint saved by the reader (signed-note text). */
  savedCheckpoint?: string
  /**
   * Worker threads that check a full export's lines (0: this thread alone). Without it, one per
   * core for a file of 8 MiB or more (about 25,000 events), none for a smaller one.
   */
  threads?: number
}

function readSigned(text: string, verifier: NoteVerifier, what: string): Checkpoint | Problem {
  const note = parseSignedNote(text)
  const checkpoint = note === null ? null : parseCheckpoint(note.text)
  if (note === null || checkpoint === null)
    return { index: null, kind: 'malformed', detail: `${what} is not a signed checkpoint` }
  if (!verifyNote(note, verifier))
    return {
      index: null,
      kind: 'bad signature',
      detail: `${what} is not signed by ${verifier.name}`,
    }
  return checkpoint
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const CHUNK_BYTES = 1 << 20
const LF = 0x0a

/**
 * The file in chunks of whole lines, split at LF only, about 1 MiB each; the last chunk may end in
 * the middle of a line. A line longer than a chunk doubles the next read, so it is copied O(1)
 * times.
 */
async function* chunksOf(file: string): AsyncGenerator<Uint8Array> {
  const handle = await fs.promises.open(file)
  try {
    let carry = new Uint8Array(0)
    for (;;) {
      const want = Math.max(CHUNK_BYTES, carry.length)
      const buffer = new Uint8Array(carry.length + want)
      buffer.set(carry)
      const { bytesRead } = await handle.read(buffer, carry.length, want, null)
      const filled = carry.length + bytesRead
      if (bytesRead === 0) {
        if (filled > 0) yield buffer.subarray(0, filled)
        return
      }
      const cut = buffer.lastIndexOf(LF, filled - 1) + 1
      // Copied out, so that the chunk's whole buffer can be handed to a worker.
      carry = buffer.slice(cut, filled)
      if (cut > 0) yield buffer.subarray(0, cut)
    }
  } finally {
    await handle.close()
  }
}

/**
 * The first line (the header, without its LF; null when the file has none), and the chunks after
 * it.
 */
async function splitHeader(
  chunks: AsyncGenerator<Uint8Array>,
): Promise<{ header: string | null; rest: AsyncIterable<Uint8Array> }> {
  const head = await chunks.next()
  const first = head.done === true ? null : head.value
  const end = first === null ? -1 : first.indexOf(LF)
  async function* rest(): AsyncGenerator<Uint8Array> {
    if (first !== null && end + 1 < first.length) yield first.subarray(end + 1)
    yield* chunks
  }
  return {
    header: end === -1 ? null : Buffer.from(first!.buffer, first!.byteOffset, end).toString('utf8'),
    rest: rest(),
  }
}

/** Where the lines are checked: in this thread, or spread over worker threads (export-lines.ts). */
interface LineChecker {
  /** How many chunks to have out at once. */
  readonly ahead: number
  check(chunk: Uint8Array): Promise<CheckedLines>
  close(): Promise<void>
}

const inThisThread: LineChecker = {
  ahead: 1,
  check: async (chunk) => checkLines(chunk),
  close: async () => {},
}

/**
 * `count` workers, given chunks in turn; each answers its own in order, so the answers keep the
 * file's order.
 */
function workerPool(count: number): LineChecker {
  const workers = Array.from({ length: count }, () => {
    const worker = new Worker(CHECKER_URL, { workerData: CHECKER_ROLE })
    const waiting: Array<{
      resolve: (checked: CheckedLines) => void
      reject: (error: unknown) => void
    }> = []
    worker.on('message', (checked: CheckedLines) => waiting.shift()?.resolve(checked))
    worker.on('error', (error) => {
      for (const wait of waiting.splice(0)) wait.reject(error)
    })
    // A worker that stops without an error (killed, out of memory) must not leave its chunks
    // waiting forever.
    worker.on('exit', (code) => {
      for (const wait of waiting.splice(0))
        wait.reject(new Error(`a line checker stopped (exit code ${code})`))
    })
    return { worker, waiting }
  })
  let turn = 0
  return {
    ahead: AHEAD_PER_THREAD * count,
    check(chunk) {
      const next = workers[turn++ % workers.length]!
      return new Promise((resolve, reject) => {
        next.waiting.push({ resolve, reject })
        next.worker.postMessage(chunk, [chunk.buffer as ArrayBuffer])
      })
    },
    async close() {
      await Promise.all(workers.map(({ worker }) => worker.terminate()))
    },
  }
}

/** Chunks out at once per worker: one being checked, one waiting for it. */
const AHEAD_PER_THREAD = 2
/** Below this size, starting workers costs more than it saves. */
const PARALLEL_FROM_BYTES = 8 * CHUNK_BYTES

function result(
  problem: Problem | null,
  fields: Omit<ExportVerification, 'ok' | 'problem'>,
): ExportVerification {
  return { ok: problem === null, problem, ...fields }
}

export async function verifyExportFile(
  file: string,
  options: ExportVerifyOptions = {},
): Promise<ExportVerification> {
  const chunks = chunksOf(file)
  const fields = {
    entries: 0,
    treeSize: 0,
    subset: false,
    keyFromExport: options.verifierKey === undefined,
  }
  try {
    const { header: first, rest } = await splitHeader(chunks)
    let header: ExportHeader
    try {
      if (first === null || !first.startsWith('{') || !first.endsWith('}'))
        throw new Error('no header')
      header = JSON.parse(first) as ExportHeader
    } catch {
      return result(
        { index: null, kind: 'malformed', detail: 'the first line is not the export header' },
        fields,
      )
    }
    if (
      !isObject(header) ||
      header.type !== VERIFIABLE_EXPORT_TYPE ||
      typeof header.checkpoint !== 'string' ||
      typeof header.verifier_key !== 'string'
    ) {
      return result(
        { index: null, kind: 'malformed', detail: 'the first line is not the export header' },
        fields,
      )
    }
    const headerKey = header.verifier_key.trim()
    const trusted = options.verifierKey?.trim() ?? headerKey
    const verifier = parseVerifierKey(headerKey)
    if (verifier === null || parseVerifierKey(trusted) === null) {
      return result(
        {
          index: null,
          kind: 'malformed',
          detail: 'the verifier key is not a signed-note Ed25519 key',
        },
        fields,
      )
    }
    if (trusted !== headerKey && header.key_rotations === undefined) {
      return result(
        {
          index: null,
          kind: 'bad signature',
          detail: 'the export names another verifier key than the one given',
        },
        fields,
      )
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
      return result(
        {
          index: null,
          kind: 'edited',
          detail: `the header says ${header.tree_size} leaves, its checkpoint ${checkpoint.size}`,
        },
        fields,
      )
    }

    const roots: SignedRoot[] = [
      { size: checkpoint.size, root: checkpoint.root, label: "the export's checkpoint" },
    ]
    if (options.savedCheckpoint !== undefined) {
      const note = parseSignedNote(options.savedCheckpoint)
      const saved = note === null ? null : parseCheckpoint(note.text)
      if (saved === null)
        return result(
          {
            index: null,
            kind: 'malformed',
            detail: 'the saved checkpoint is not a signed checkpoint',
          },
          fields,
        )
      // Signed by the key in force at its size (both keys at a rotation's size).
      if (!signedByAll(options.savedCheckpoint, keysAt(chain, saved.size))) {
        return result(
          {
            index: null,
            kind: 'bad signature',
            detail: "the saved checkpoint is not signed by the log's key for its size",
          },
          fields,
        )
      }
      if (saved.origin !== checkpoint.origin) {
        return result(
          {
            index: null,
            kind: 'not consistent',
            detail: `the saved checkpoint is of another log (${saved.origin})`,
          },
          fields,
        )
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
          {
            index: null,
            kind: 'malformed',
            detail:
              'a saved checkpoint can be checked against a full export only (without filters)',
          },
          fields,
        )
      }
      roots.push({
        size: saved.size,
        root: saved.root,
        label: 'the saved checkpoint',
        mismatch: 'not consistent',
      })
    }

    if (fields.subset) return await verifySubset(rest, checkpoint, fields)
    const threads =
      options.threads ??
      ((await fs.promises.stat(file)).size >= PARALLEL_FROM_BYTES ? os.availableParallelism() : 0)
    const checker = threads > 0 ? workerPool(threads) : inThisThread
    try {
      return await verifyFull(rest, checker, checkpoint, roots, fields)
    } finally {
      await checker.close()
    }
  } finally {
    await chunks.return(undefined)
  }
}

async function verifyFull(
  chunks: AsyncIterable<Uint8Array>,
  checker: LineChecker,
  checkpoint: Checkpoint,
  roots: SignedRoot[],
  fields: Omit<ExportVerification, 'ok' | 'problem'>,
): Promise<ExportVerification> {
  const verifier = new LogVerifier(checkpoint.size, roots)
  const add = (checked: CheckedLines): boolean => {
    let redaction = 0
    for (let i = 0; i < checked.count && verifier.problem === null; i++) {
      fields.entries++
      const statedHash = Buffer.from(
        checked.hashes.buffer,
        checked.hashes.byteOffset + i * HASH_BYTES,
        HASH_BYTES,
      )
      const index = checked.indexes[i]!
      const kind = checked.kinds[i]
      if (kind === LINE_REDACTED) {
        verifier.add({ index, statedHash, event: null })
        continue
      }
      const record = checked.redactions[redaction]
      const redacts = record?.[0] === i ? (redaction++, record[1]) : []
      verifier.add({
        index,
        statedHash,
        event: null,
        checked: { matches: kind === LINE_EVENT, redacts },
      })
    }
    if (checked.malformed !== null)
      verifier.fail({ index: verifier.size, kind: 'malformed', detail: checked.malformed })
    return verifier.problem === null
  }
  // Chunks are read and handed out while earlier ones are checked, and added in the file's order.
  const checking: Array<Promise<CheckedLines>> = []
  reading: for await (const chunk of chunks) {
    const checked = checker.check(chunk)
    // Handled here too: when a problem ends the loop early, the chunks still out are not awaited.
    checked.catch(() => {})
    checking.push(checked)
    while (checking.length >= checker.ahead) if (!add(await checking.shift()!)) break reading
  }
  while (verifier.problem === null && checking.length > 0) add(await checking.shift()!)
  return result(verifier.finish(), fields)
}

/**
 * The chunks' lines, parsed (a string: why a line is not an entry, or that the file ends mid-line).
 */
async function* linesOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ParsedLine | string> {
  for await (const chunk of chunks) yield* parsedLines(chunk)
}

async function verifySubset(
  chunks: AsyncIterable<Uint8Array>,
  checkpoint: Checkpoint,
  fields: Omit<ExportVerification, 'ok' | 'problem'>,
): Promise<ExportVerification> {
  let previous = -1
  for await (const line of linesOf(chunks)) {
    if (typeof line === 'string')
      return result({ index: previous + 1, kind: 'malformed', detail: line }, fields)
    fields.entries++
    const index = line.index
    if (index <= previous)
      return result(
        { index, kind: 'reordered', detail: `leaf ${index} comes after leaf ${previous}` },
        fields,
      )
    if (line.leafText === undefined)
      return result(
        { index, kind: 'malformed', detail: 'a filtered export holds events only' },
        fields,
      )
    const hash = leafHashOf(line.leafText)
    if (!hash.equals(line.leafHash))
      return result(
        { index, kind: 'edited', detail: 'the event does not match its leaf hash' },
        fields,
      )
    if (
      !verifyInclusion(index, checkpoint.size, hash, line.inclusionProof ?? [], checkpoint.root)
    ) {
      return result(
        {
          index,
          kind: 'edited',
          detail: "its inclusion proof does not lead to the checkpoint's root",
        },
        fields,
      )
    }
    previous = index
  }
  return result(null, fields)
}
