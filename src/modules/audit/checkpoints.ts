/**
 * Signed checkpoints of the audit Merkle tree in the C2SP tlog-checkpoint format: the
 * origin (this instance's public host and path, then `/audit-log`), the tree size and the base64
 * root hash, signed with the instance's Ed25519 key as a C2SP signed note. A checkpoint is made
 * once 256 events have arrived since the last one, or a second after the last one while any have
 * (each instance tries; the first to store a size wins, the others' inserts do nothing), before
 * each verifiable export, and on demand.
 *
 * Before signing, the new head is checked to extend the last signed checkpoint (an RFC 9162
 * consistency proof over the stored nodes): a database whose history was rewritten is never signed.
 */
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import {
  consistencyProof,
  Frontier,
  nodesRead,
  rootOf,
  verifyConsistency,
  type NodeId,
  type NodeReader,
} from '../../lib/merkle.js'
import {
  checkpointText,
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  verifyNote,
  type NoteSigner,
} from '../../lib/signed-note.js'
import type { Executor } from '../../db/schema.js'
import { startPeriodic } from '../../lib/periodic.js'
import { readAuditSigningKey } from '../../lib/secrets.js'
import { createAuditSigner } from './signer.js'
import { eventLeafHash, leafEventOf } from './leaf.js'
import {
  findLatestCheckpoint,
  findTreeNodes,
  insertCheckpoint,
  insertTreeNodes,
  listLeafEvents,
  lockTreeState,
  readTreeSize,
  readTreeState,
  setMaterializedSize,
  type CheckpointRow,
} from './tree.repo.js'

/** Reads the stored nodes a computation needs in one round of queries, then runs it over them. */
export async function withStoredNodes<T>(
  ex: Executor,
  compute: (node: NodeReader) => T,
): Promise<T> {
  const found = await findTreeNodes(ex, nodesRead(compute))
  return compute((level, index) => {
    const hash = found.get(`${level}:${index}`)
    if (hash === undefined) throw new MissingNodeError(level, index)
    return hash
  })
}

export class MissingNodeError extends Error {
  constructor(
    readonly level: number,
    readonly index: number,
  ) {
    super(`the audit tree has no node at level ${level}, index ${index}`)
    this.name = 'MissingNodeError'
  }
}

export class InconsistentTreeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InconsistentTreeError'
  }
}

/** Leaves whose events are read per query while their nodes are stored. */
const MATERIALIZE_BATCH = 2000

/**
 * Stores the tree nodes of the leaves appended since the last time (repo.ts insertAuditEvents
 * writes only the event and the head): each pending event's leaf hash, recomputed from its row,
 * and the perfect subtrees they complete. Under the head's lock, so the instances sharing a
 * database do it once; nothing is stored unless the pending events give exactly the head's
 * frontier — an event edited, or removed, since its commit is refused here (and reported by the
 * integrity check) instead of being hashed into the tree. Returns the tree whose nodes are all
 * stored now (the head, as of the lock). Run before every checkpoint (the checkpointer's, once 256
 * events have arrived or a second after the last), proof or export, and before retention removes
 * events' content.
 */
export async function materializeTree(ex: Executor): Promise<Frontier> {
  const state = await readTreeState(ex)
  if (state.materializedSize >= state.tree.size) return state.tree
  if (!ex.isTransaction) return ex.transaction().execute((tx) => materializeIn(tx))
  return materializeIn(ex)
}

async function materializeIn(tx: Executor): Promise<Frontier> {
  const { tree: head, materializedSize } = await lockTreeState(tx)
  if (materializedSize >= head.size) return head
  // The tree of the stored leaves, from its stored perfect subtrees.
  const ids = Frontier.nodesOf(materializedSize)
  const found = await findTreeNodes(tx, ids)
  const tree = new Frontier(
    materializedSize,
    ids.map(({ level, index }) => {
      const hash = found.get(`${level}:${index}`)
      if (hash === undefined) throw new MissingNodeError(level, index)
      return hash
    }),
  )
  for (let from = materializedSize; from < head.size; from += MATERIALIZE_BATCH) {
    const to = Math.min(from + MATERIALIZE_BATCH, head.size)
    const events = await listLeafEvents(tx, from, to)
    const nodes: Array<NodeId & { hash: Buffer }> = []
    for (let index = from; index < to; index++) {
      const stored = events.get(index)
      if (stored === undefined)
        throw new InconsistentTreeError(
          `the event of leaf ${index} is gone before its leaf hash was stored`,
        )
      let hash: Buffer
      try {
        hash = eventLeafHash(leafEventOf(stored))
      } catch {
        throw new InconsistentTreeError(
          `event ${stored.id} (leaf ${index}) cannot be read as an audit event`,
        )
      }
      nodes.push(...tree.append(hash))
    }
    for (let i = 0; i < nodes.length; i += NODE_CHUNK)
      await insertTreeNodes(tx, nodes.slice(i, i + NODE_CHUNK))
  }
  // A rollback (the throw) takes back the nodes stored above.
  if (!tree.equals(head)) {
    throw new InconsistentTreeError(
      `the events of leaves ${materializedSize}–${head.size - 1} do not give the tree head: changed since they were written`,
    )
  }
  await setMaterializedSize(tx, head.size)
  return head
}

/** Node rows per insert (three parameters each, well under either engine's bound). */
const NODE_CHUNK = 500

export function signCheckpoint(signer: NoteSigner, size: number, root: Buffer): string {
  const text = checkpointText({ origin: signer.name, size, root })
  return `${text}\n${signer.sign(text)}`
}

/** A stored checkpoint's root, read from its signed note. */
export function signedRootOf(row: CheckpointRow): Buffer {
  const note = parseSignedNote(row.note)
  const checkpoint = note === null ? null : parseCheckpoint(note.text)
  if (checkpoint === null || checkpoint.size !== row.treeSize)
    throw new InconsistentTreeError(`the stored checkpoint of size ${row.treeSize} is malformed`)
  return checkpoint.root
}

/** This instance's key is not the log's: it cannot sign, but the stored checkpoints stay valid. */
export class ForeignKeyError extends InconsistentTreeError {
  constructor() {
    super(
      "the last audit checkpoint is not signed by this instance's key: every instance on one database needs the same AUDIT_SIGNING_KEY (or secrets.json), the new one after `switchboard audit rotate-key`",
    )
    this.name = 'ForeignKeyError'
  }
}

/**
 * Two keys signing one log would make every check fail: the log keeps the key that signed it last.
 * A rotation checkpoint is signed by the old key and then the new one, so the key whose signature
 * line comes last is the log's.
 */
function isLogKey(signer: NoteSigner, last: CheckpointRow): boolean {
  const note = parseSignedNote(last.note)
  return (
    note !== null &&
    verifyNote(
      { text: note.text, signatures: note.signatures.slice(-1) },
      parseVerifierKey(signer.verifierKey)!,
    )
  )
}

export function assertLogKey(signer: NoteSigner, last: CheckpointRow): void {
  if (!isLogKey(signer, last)) throw new ForeignKeyError()
}

/**
 * `switchboard audit rotate-key` puts the new key into secrets.json once the rotation committed;
 * an instance started before it still holds the old key. Instead of refusing to sign until a
 * restart, it takes the file's key — only when that key is the log's (it signed the latest
 * checkpoint last, as the rotation checkpoint's new key does). A key given in AUDIT_SIGNING_KEY
 * cannot change under a running process: that instance keeps refusing to sign (the checkpointer
 * logs why) and serves the stored checkpoints (`latestCheckpoint`).
 */
function adoptRotatedKey(deps: Deps, last: CheckpointRow): boolean {
  if (deps.config.auditSigningKey !== undefined || deps.secrets.file === null) return false
  const key = readAuditSigningKey(deps.secrets.file)
  if (key === undefined) return false
  const signer = createAuditSigner(deps.config.publicUrl, key)
  if (signer.verifierKey === deps.auditSigner.verifierKey || !isLogKey(signer, last)) return false
  deps.auditSigner = signer
  deps.logger.info(
    { verifier_key: signer.verifierKey },
    'picked up the rotated audit signing key from the secrets file',
  )
  return true
}

/**
 * Signs and stores a checkpoint of the current tree when it has grown since the last one; returns
 * the latest checkpoint either way (null while the log is empty and unsigned).
 */
export async function makeCheckpoint(deps: Deps): Promise<CheckpointRow | null> {
  // The tree signed is the one whose nodes are stored: the consistency proof below reads them.
  const head = await materializeTree(deps.db)
  const last = await findLatestCheckpoint(deps.db)
  if (last !== null && last.treeSize >= head.size) return last
  const root = head.root()
  if (last !== null && !isLogKey(deps.auditSigner, last) && !adoptRotatedKey(deps, last))
    throw new ForeignKeyError()
  if (last !== null && last.treeSize > 0) {
    const { proof, oldRoot } = await withStoredNodes(deps.db, (node) => ({
      proof: consistencyProof(last.treeSize, head.size, node),
      oldRoot: rootOf(last.treeSize, node),
    }))
    const signedRoot = signedRootOf(last)
    if (
      !oldRoot.equals(signedRoot) ||
      !verifyConsistency(last.treeSize, head.size, signedRoot, root, proof)
    ) {
      throw new InconsistentTreeError(
        `the audit tree of size ${head.size} does not extend the signed checkpoint of size ${last.treeSize}`,
      )
    }
  }
  const checkpoint: CheckpointRow = {
    treeSize: head.size,
    note: signCheckpoint(deps.auditSigner, head.size, root),
    createdAt: deps.clock.now().toISOString(),
  }
  await insertCheckpoint(deps.db, checkpoint)
  return (await findLatestCheckpoint(deps.db)) ?? checkpoint
}

/**
 * The latest checkpoint for readers (the API, the verifiable export): a new one when the tree has
 * grown and this instance can sign, else the latest stored one — still a checkpoint of the log,
 * signed by its key — when this instance's key is no longer the log's (rotated under it).
 */
export async function latestCheckpoint(deps: Deps): Promise<CheckpointRow | null> {
  try {
    return await makeCheckpoint(deps)
  } catch (error) {
    if (!(error instanceof ForeignKeyError)) throw error
    return findLatestCheckpoint(deps.db)
  }
}

/** Events since the last checkpoint that call for the next one at once ("or every 256 events"). */
export const CHECKPOINT_EVENTS = 256
/** The longest a new event waits for a checkpoint that covers it ("at least every second"). */
export const CHECKPOINT_INTERVAL_MS = 1000
/** How often the checkpointer reads the tree's size: one indexed read of one row. */
const LOOK_MS = 100

/** Whether a checkpoint is due, with `pending` events since the last one, made `sinceMs` ago. */
export function checkpointDue(pending: number, sinceMs: number): boolean {
  return pending >= CHECKPOINT_EVENTS || (pending > 0 && sinceMs >= CHECKPOINT_INTERVAL_MS)
}

export interface Checkpointer {
  /** Stops looking, once the checkpoint being made (if any) is stored. */
  stop(): Promise<void>
}

/**
 * Makes checkpoints as they fall due: the tree's size is read every LOOK_MS, so a checkpoint
 * follows the 256th event within a tenth of a second, and each run stores the nodes of at most
 * about that many events plus a tenth of a second's worth — on SQLite that work runs on the event
 * loop (docs/decisions/0017-audit-tree-nodes-after-commit.md), so a fast stream of audited writes
 * is taken in short pieces, not a second's worth at a time. One run at a time; a failure (the
 * database away, or a tree that does not extend its last checkpoint) goes to `onProblem` and is
 * tried again a second later.
 */
export function startCheckpointer(
  deps: Deps,
  onProblem: (error: Error) => void,
  onMade: () => void = () => undefined,
): Checkpointer {
  let covered = -1
  let madeAt = 0
  let retryAt = 0
  const look = async () => {
    if (Date.now() < retryAt) return
    const size = await readTreeSize(deps.db)
    // The first look, and any after another instance's rotation or a restore, checks with
    // makeCheckpoint itself.
    if (covered >= 0 && covered <= size && !checkpointDue(size - covered, Date.now() - madeAt))
      return
    const checkpoint = await makeCheckpoint(deps)
    covered = checkpoint?.treeSize ?? 0
    madeAt = Date.now()
    onMade()
  }
  return startPeriodic(LOOK_MS, look, (error) => {
    // A second, not a tenth, before the next try: a failing checkpoint costs more than a look.
    retryAt = Date.now() + CHECKPOINT_INTERVAL_MS
    onProblem(error)
  })
}

/**
 * The service's checkpointer, from ready to close. A problem is logged once per change of message,
 * not at every look.
 */
export function installCheckpointer(app: FastifyInstance, deps: Deps): void {
  let checkpointer: Checkpointer | undefined
  let lastProblem: string | null = null
  app.addHook('onReady', async () => {
    checkpointer = startCheckpointer(
      deps,
      (error) => {
        if (error.message !== lastProblem)
          deps.logger.error(
            { error: { message: error.message } },
            'could not make an audit log checkpoint',
          )
        lastProblem = error.message
      },
      () => {
        lastProblem = null
      },
    )
  })
  app.addHook('onClose', async () => checkpointer?.stop())
}
