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
import type { Deps } from '../../deps.js'
import { createNoteSigner, parseCheckpoint, parseSignedNote } from '../../lib/signed-note.js'
import { keysAt, signedByAll, type KeyChain } from './key-chain.js'
import { loadKeyChain } from './key-rotation.js'
import { leafEventOf } from './leaf.js'
import {
  countEventsOutsideTree,
  findCheckpointsOfSizes,
  listCheckpoints,
  listInnerNodes,
  listLeaves,
  readTreeState,
  type CheckpointRow,
} from './tree.repo.js'
import { LogVerifier, type Problem, type SignedRoot } from './verify.js'

const BATCH = 2000
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
function checkingKey(
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
 * Every stored checkpoint's size and note, read in pages, thinned to a bounded, evenly spaced
 * sample plus the latest.
 */
async function sampledCheckpoints(deps: Deps): Promise<CheckpointRow[]> {
  const all: CheckpointRow[] = []
  for (let after = -1; ;) {
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
function signedRootOf(row: CheckpointRow, chain: KeyChain): SignedRoot | Problem {
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

export async function checkDatabase(deps: Deps): Promise<IntegrityResult> {
  const sampled = await sampledCheckpoints(deps)
  const { verifierKey, originMismatch } = checkingKey(deps, sampled.at(-1))
  const result = await checkWith(deps, sampled, verifierKey)
  return originMismatch === undefined ? result : { ...result, originMismatch }
}

async function checkWith(
  deps: Deps,
  sampled: CheckpointRow[],
  verifierKey: string,
): Promise<IntegrityResult> {
  const chain = await loadKeyChain(deps, verifierKey)
  if ('kind' in chain) return { ok: false, problem: chain, size: 0, checkpoints: 0 }
  // Every rotation checkpoint is checked (it carries the chain), besides the sample.
  const rotationSizes = chain.rotations.map((r) => r.treeSize)
  const rotationRows = await findCheckpointsOfSizes(deps.db, rotationSizes)
  const missing = rotationSizes.find((size) => !rotationRows.some((row) => row.treeSize === size))
  if (missing !== undefined) {
    return {
      ok: false,
      problem: {
        index: missing - 1,
        kind: 'bad signature',
        detail: `the checkpoint of the key rotation at size ${missing} is missing`,
      },
      size: 0,
      checkpoints: 0,
    }
  }
  const rows = [
    ...new Map([...sampled, ...rotationRows].map((row) => [row.treeSize, row])).values(),
  ].sort((a, b) => a.treeSize - b.treeSize)
  const roots: SignedRoot[] = []
  for (const row of rows) {
    const root = signedRootOf(row, chain)
    if ('kind' in root) return { ok: false, problem: root, size: 0, checkpoints: 0 }
    roots.push(root)
  }
  // Leaves appended since the nodes were last stored have no stored hash yet: each is hashed from
  // its event, and their root checked against the head, which fixed their hashes at commit. The
  // check only reads (it stores nothing, so `verify --database` changes nothing).
  const { tree: head, materializedSize } = await readTreeState(deps.db)
  const size = Math.max(head.size, rows.at(-1)?.treeSize ?? 0)
  // The head's own root is compared too: a changed frontier would make the next checkpoint wrong.
  roots.push({ size: head.size, root: head.root(), label: 'the tree head' })
  const verifier = new LogVerifier(size, roots)
  for (let from = 0; from < size && verifier.problem === null; from += BATCH) {
    const to = Math.min(from + BATCH, size)
    const { nodes, events } = await listLeaves(deps.db, from, to)
    const inner = await listInnerNodes(deps.db, from, to)
    for (let index = from; index < to && verifier.problem === null; index++) {
      const stored = events.get(index)
      const hex = nodes.get(index)
      if (stored === undefined && hex === undefined) {
        verifier.fail({
          index,
          kind: 'missing',
          detail: 'neither the event nor its leaf hash is in the database',
        })
        break
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
          break
        }
      }
      if (event !== null && hex === undefined && index < materializedSize) {
        verifier.fail({
          index,
          kind: 'missing',
          detail: `the leaf hash of event ${event.id} is not in the tree`,
        })
        break
      }
      verifier.add({ index, statedHash: hex === undefined ? null : Buffer.from(hex, 'hex'), event })
      // The nodes above the leaves serve the proofs: each must be the hash of the leaves under it.
      for (const node of verifier.problem === null && index < materializedSize
        ? verifier.completed.slice(1)
        : []) {
        if (inner.get(`${node.level}:${node.index}`) !== node.hash.toString('hex')) {
          const first = node.index * 2 ** node.level
          verifier.fail({
            index: first,
            kind: 'edited',
            detail: `the tree node over leaves ${first}–${first + 2 ** node.level - 1} does not match them`,
          })
          break
        }
      }
    }
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
  return { ok: problem === null, problem, size, checkpoints: verifier.rootsChecked }
}
