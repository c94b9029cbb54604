/**
 * The live database's integrity check: every stored leaf against its event, the tree
 * rebuilt from the leaves against the signed checkpoints and the tree head, and no event outside
 * the tree. Leaves whose nodes are not stored yet (appended since the last checkpoint) have their
 * hashes from their events, checked through the head's root. Run by
 * `switchboard audit verify --database`, at start and hourly by the monitor (monitor.ts).
 *
 * Work is bounded: the leaves are read in batches, and the roots compared are the latest
 * checkpoint's (which covers every leaf it counts: any change below it changes that root) and up to
 * SAMPLED_CHECKPOINTS evenly spaced earlier ones, which narrow down where a change is, and every
 * key-rotation checkpoint. Each is checked with the key(s) in force at its size (key-chain.ts).
 */
import { createHash } from 'node:crypto'
import { nextTurn } from '../../lib/event-loop-turns.js'
import { isPostgres } from '../../db/engine.js'
import type { Deps } from '../../deps.js'
import type { Frontier } from '../../lib/merkle.js'
import { createNoteSigner, parseCheckpoint, parseSignedNote } from '../../lib/signed-note.js'
import { keysAt, signedByAll, type KeyChain } from './key-chain.js'
import { loadKeyChain } from './key-rotation.js'
import { leafEventOf, type StoredEvent } from './leaf.js'
import {
  countEventsOutsideTree,
  digestLeafSpan,
  findCheckpointsOfSizes,
  listCheckpoints,
  listInnerNodes,
  listLeaves,
  readTreeState,
  type CheckpointRow,
  type TreeState,
} from './tree.repo.js'
import { LogVerifier, type Problem, type SignedRoot } from './verify.js'

/**
 * Leaves per span: read in one snapshot, what the check holds at once, and one digest of the
 * verified prefix (integrity-prefix.ts). The event loop gets a turn between spans and between the
 * parts of one (SPAN_PART): on SQLite every read is synchronous, so a part is the longest the check
 * keeps other requests waiting (docs/decisions/0081-the-audit-check-gives-turns.md).
 */
export const BATCH = 1024

/**
 * Leaves read and verified between two turns of the event loop within a span: the span's
 * transaction stays open across them, which on SQLite holds the check's own connection
 * (db/client.ts withOwnReader), not the service's, so a request waits for at most a part
 * (docs/decisions/0082-the-audit-check-reads-on-its-own-connection.md).
 */
export const SPAN_PART = 256
const SAMPLED_CHECKPOINTS = 1000
const CHECKPOINT_PAGE = 5000

export interface IntegrityResult {
  ok: boolean
  problem: Problem | null
  /** Leaves checked. */
  size: number
  /** Signed roots the leaves were compared with. */
  checkpoints: number
  /**
   * Set when the log's checkpoints name another origin than this configuration's PUBLIC_URL gives:
   * the check was made under the log's own origin (`log`), with this instance's key.
   */
  originMismatch?: { log: string; configured: string }
}

/**
 * The key that checks the log: this instance's, named after the origin its latest checkpoint
 * carries. The origin is part of the key's name (C2SP signed note), so a check run with another
 * PUBLIC_URL than the service's (the CLI with only DATA_DIR) would report every checkpoint as
 * unsigned on an intact log; the disagreement is reported as what it is instead.
 */
export function checkingKey(
  deps: Deps,
  latest: CheckpointRow | undefined,
): { verifierKey: string; originMismatch?: { log: string; configured: string } } {
  const configured = deps.auditSigner.name
  const note = latest === undefined ? null : parseSignedNote(latest.note)
  const log = note === null ? null : (parseCheckpoint(note.text)?.origin ?? null)
  if (log === null || log === configured || /[\s+]/.test(log))
    return { verifierKey: deps.auditSigner.verifierKey }
  const signer = createNoteSigner(log, deps.secrets.auditSigningKey)
  return { verifierKey: signer.verifierKey, originMismatch: { log, configured } }
}

/**
 * Every stored checkpoint's size and note from size `from` on, read in pages, thinned to a bounded,
 * evenly spaced sample plus the latest.
 */
export async function sampledCheckpoints(deps: Deps, from = 0): Promise<CheckpointRow[]> {
  const all: CheckpointRow[] = []
  for (let after = from - 1; ;) {
    const page = await listCheckpoints(deps.db, after, CHECKPOINT_PAGE)
    all.push(...page)
    if (page.length < CHECKPOINT_PAGE) break
    after = page.at(-1)!.treeSize
  }
  if (all.length <= SAMPLED_CHECKPOINTS) return all
  const step = all.length / SAMPLED_CHECKPOINTS
  const sample = new Set<CheckpointRow>()
  for (let i = 0; i < SAMPLED_CHECKPOINTS; i++) sample.add(all[Math.floor(i * step)]!)
  sample.add(all.at(-1)!)
  return [...sample]
}

/**
 * A checkpoint's signed root; a problem when its note is not right or not signed by the key(s) in
 * force at its size.
 */
export function signedRootOf(row: CheckpointRow, chain: KeyChain): SignedRoot | Problem {
  const note = parseSignedNote(row.note)
  const checkpoint = note === null ? null : parseCheckpoint(note.text)
  if (note === null || checkpoint === null || checkpoint.size !== row.treeSize) {
    return {
      index: null,
      kind: 'bad signature',
      detail: `the stored checkpoint of size ${row.treeSize} is not a signed checkpoint`,
    }
  }
  const keys = keysAt(chain, row.treeSize)
  if (!signedByAll(row.note, keys)) {
    return {
      index: null,
      kind: 'bad signature',
      detail: `the checkpoint of size ${row.treeSize} is not signed by ${keys.length > 1 ? 'both keys of the key rotation at that size' : 'the audit log key'}`,
    }
  }
  return {
    size: checkpoint.size,
    root: checkpoint.root,
    label: `the checkpoint of size ${checkpoint.size}`,
  }
}

/** A check's result, the prefix the next check may start from, and the leaf it started at. */
export interface CheckOutcome {
  result: IntegrityResult
  prefix: VerifiedPrefix | null
  /** 0 for the whole check; otherwise the size of the prefix it started from. */
  from: number
}

export interface VerifiedPrefix {
  /** The key the prefix's checkpoints were checked with. */
  verifierKey: string
  /** The tree of the verified leaves. */
  frontier: Frontier
  /** One digest per BATCH leaves, in order (tree.repo.ts digestLeafSpan). */
  digests: string[]
  /** The digest of the stored checkpoints smaller than the prefix (checkpointsDigest). */
  checkpointsDigest: Buffer
  /** Signed roots compared within the prefix. */
  checkpoints: number
}

/** The stored checkpoints of sizes below `size`, each its size and note. */
export async function checkpointsDigest(deps: Deps, size: number): Promise<Buffer> {
  const hash = createHash('sha256')
  for (let after = -1; ;) {
    const page = await listCheckpoints(deps.db, after, CHECKPOINT_PAGE)
    const below = page.filter((row) => row.treeSize < size)
    for (const row of below) hash.update(`${row.treeSize}\n${row.note}\n`)
    if (below.length < CHECKPOINT_PAGE) break
    after = page.at(-1)!.treeSize
  }
  return hash.digest()
}

/** What a check that keeps no prefix is given as the next one: none. */
const NO_PREFIX: NextPrefix = { size: 0, checkpointsDigest: Buffer.alloc(0) }

/**
 * The whole check, for `audit verify --database`: nothing is kept for a later check, so no span of
 * leaves is digested (that read every event a second time).
 */
export async function checkDatabase(deps: Deps): Promise<IntegrityResult> {
  return (await checkWhole(deps, NO_PREFIX)).result
}

/**
 * The whole check; when it passes, also what the next check may start from (integrity-prefix.ts).
 */
export async function checkDatabaseFully(deps: Deps): Promise<CheckOutcome> {
  return checkWhole(deps, await nextPrefix(deps))
}

async function checkWhole(deps: Deps, next: NextPrefix): Promise<CheckOutcome> {
  const sampled = await sampledCheckpoints(deps)
  const { verifierKey, originMismatch } = checkingKey(deps, sampled.at(-1))
  const checked = await checkWith(deps, sampled, verifierKey, next)
  return originMismatch === undefined
    ? checked
    : { result: { ...checked.result, originMismatch }, prefix: null, from: 0 }
}

/** The checkpoints to compare and the chain of keys that signed them; or the problem with them. */
export async function signedRoots(
  deps: Deps,
  sampled: CheckpointRow[],
  verifierKey: string,
  from = 0,
): Promise<SignedRoot[] | Problem> {
  const chain = await loadKeyChain(deps, verifierKey)
  if ('kind' in chain) return chain
  // Every rotation checkpoint is checked (it carries the chain), besides the sample.
  const rotationSizes = chain.rotations.map((r) => r.treeSize)
  const rotationRows = await findCheckpointsOfSizes(deps.db, rotationSizes)
  const missing = rotationSizes.find((size) => !rotationRows.some((row) => row.treeSize === size))
  if (missing !== undefined) {
    return {
      index: missing - 1,
      kind: 'bad signature',
      detail: `the checkpoint of the key rotation at size ${missing} is missing`,
    }
  }
  const rows = [
    ...new Map(
      [...sampled, ...rotationRows.filter((row) => row.treeSize >= from)].map((row) => [
        row.treeSize,
        row,
      ]),
    ).values(),
  ].sort((a, b) => a.treeSize - b.treeSize)
  const roots: SignedRoot[] = []
  for (const row of rows) {
    const root = signedRootOf(row, chain)
    if ('kind' in root) return root
    roots.push(root)
  }
  return roots
}

/**
 * Where the next prefix may end — the whole spans of leaves whose nodes are stored — and the
 * digest of the checkpoints below it, taken before any checkpoint is read to be verified: a note
 * changed meanwhile is then either verified (and refused) or differs from the digest.
 */
export async function nextPrefix(deps: Deps): Promise<NextPrefix> {
  const { materializedSize } = await readTreeState(deps.db)
  const size = Math.floor(materializedSize / BATCH) * BATCH
  return { size, checkpointsDigest: await checkpointsDigest(deps, size) }
}

interface NextPrefix {
  size: number
  checkpointsDigest: Buffer
}

async function checkWith(
  deps: Deps,
  sampled: CheckpointRow[],
  verifierKey: string,
  next: NextPrefix,
): Promise<CheckOutcome> {
  const roots = await signedRoots(deps, sampled, verifierKey)
  if ('kind' in roots)
    return { result: { ok: false, problem: roots, size: 0, checkpoints: 0 }, prefix: null, from: 0 }
  // Leaves appended since the nodes were last stored have no stored hash yet: each is hashed from
  // its event, and their root checked against the head, which fixed their hashes at commit. The
  // check only reads (it stores nothing, so `verify --database` changes nothing).
  const state = await readTreeState(deps.db)
  return verifyFrom(deps, { verifierKey, roots, state, start: null, next })
}

/**
 * Leaves from `start` (the verified prefix, or none) to the tree's size against `roots` and the
 * head; then no event outside the tree. A pass leaves the prefix the next check starts from.
 */
export async function verifyFrom(
  deps: Deps,
  input: {
    verifierKey: string
    roots: SignedRoot[]
    state: TreeState
    start: VerifiedPrefix | null
    next: NextPrefix
  },
): Promise<CheckOutcome> {
  const { roots, start } = input
  const { tree: head, materializedSize } = input.state
  const size = Math.max(head.size, roots.at(-1)?.size ?? 0)
  // The head's own root is compared too: a changed frontier would make the next checkpoint wrong.
  const verifier = new LogVerifier(
    size,
    [...roots, { size: head.size, root: head.root(), label: 'the tree head' }],
    start?.frontier,
  )
  const prefixEnd = Math.min(
    input.next.size,
    Math.floor(Math.min(materializedSize, size) / BATCH) * BATCH,
  )
  const digests = [...(start?.digests ?? [])]
  let frontier = start?.frontier ?? null
  for (let from = verifier.size; from < size && verifier.problem === null; from += BATCH) {
    const to = Math.min(from + BATCH, size)
    const spanned = to <= prefixEnd && to - from === BATCH
    // A span's digest and its rows from one snapshot: the digest is of exactly the rows verified.
    const digest = await consistentRead(deps).execute(async (tx) => {
      const inner = await listInnerNodes(tx, from, to)
      for (let part = from; part < to && verifier.problem === null; part += SPAN_PART) {
        const partEnd = Math.min(part + SPAN_PART, to)
        const rows = await listLeaves(tx, part, partEnd)
        verifyBatch(verifier, { from: part, to: partEnd, materializedSize, ...rows, inner })
        await nextTurn()
      }
      return spanned && verifier.problem === null ? digestLeafSpan(tx, from, to) : null
    })
    if (digest !== null) {
      digests.push(digest)
      frontier = verifier.frontier()
    }
    await nextTurn()
  }
  let problem = verifier.finish()
  if (problem === null) {
    const outside = await countEventsOutsideTree(deps.db, size)
    if (outside.count > 0) {
      problem = {
        index: null,
        kind: 'inserted',
        detail: `${outside.count} event(s) outside the tree, the first ${outside.firstId}`,
      }
    }
  }
  const result = {
    ok: problem === null,
    problem,
    size,
    checkpoints: verifier.rootsChecked + (start?.checkpoints ?? 0),
  }
  const from = start?.frontier.size ?? 0
  if (problem !== null) return { result, prefix: null, from }
  // The checkpoints' digest is of those below next.size: a prefix of another size keeps the last.
  if (frontier === null || frontier.size !== input.next.size) return { result, prefix: start, from }
  const prefixSize = frontier.size
  return {
    result,
    from,
    prefix: {
      verifierKey: input.verifierKey,
      frontier,
      digests,
      checkpointsDigest: input.next.checkpointsDigest,
      checkpoints:
        roots.filter((root) => root.size < prefixSize).length + (start?.checkpoints ?? 0),
    },
  }
}

/** A transaction whose reads all see one snapshot (SQLite's transactions do). */
function consistentRead(deps: Deps) {
  const tx = deps.db.transaction()
  return isPostgres(deps.db) ? tx.setIsolationLevel('repeatable read') : tx
}

/** One batch of leaves through the verifier, with the stored nodes they complete. */
function verifyBatch(
  verifier: LogVerifier,
  batch: {
    from: number
    to: number
    materializedSize: number
    nodes: Map<number, string>
    events: Map<number, StoredEvent>
    inner: Map<string, string>
  },
): void {
  const { from, to, materializedSize, nodes, events, inner } = batch
  for (let index = from; index < to && verifier.problem === null; index++) {
    const stored = events.get(index)
    const hex = nodes.get(index)
    if (stored === undefined && hex === undefined) {
      verifier.fail({
        index,
        kind: 'missing',
        detail: 'neither the event nor its leaf hash is in the database',
      })
      return
    }
    let event = null
    if (stored !== undefined) {
      try {
        event = leafEventOf(stored)
      } catch {
        verifier.fail({
          index,
          kind: 'edited',
          detail: `event ${stored.id} has metadata that is not a JSON object`,
        })
        return
      }
    }
    if (event !== null && hex === undefined && index < materializedSize) {
      verifier.fail({
        index,
        kind: 'missing',
        detail: `the leaf hash of event ${event.id} is not in the tree`,
      })
      return
    }
    verifier.add({ index, statedHash: hex === undefined ? null : Buffer.from(hex, 'hex'), event })
    if (verifier.problem !== null || index >= materializedSize) continue
    // The nodes above the leaves serve the proofs: each must be the hash of the leaves under it.
    for (const node of verifier.completed.slice(1)) {
      if (inner.get(`${node.level}:${node.index}`) !== node.hash.toString('hex')) {
        const first = node.index * 2 ** node.level
        verifier.fail({
          index: first,
          kind: 'edited',
          detail: `the tree node over leaves ${first}–${first + 2 ** node.level - 1} does not match them`,
        })
        return
      }
    }
  }
}
