/**
 * The audit log's transparency API for administrators: the latest signed checkpoint,
 * RFC 9162 inclusion and consistency proofs from the stored tree nodes (O(log n) hashes read, in
 * one round of queries), the verifier key, the integrity status, and the anchoring webhook.
 */
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import { hostLiteralProblem } from '../../lib/outbound.js'
import { consistencyProof, inclusionProof, rootOf } from '../../lib/merkle.js'
import { latestCheckpoint, materializeTree, signedRootOf, withStoredNodes } from './checkpoints.js'
import { listRotations } from './key-rotation.js'
import { runIntegrityCheck } from './monitor.js'
import { readMonitor, readTreeHead, setAnchorWebhook } from './tree.repo.js'
import { recordAudit, type Actor } from './service.js'
import type { RequestContext } from '../../identity/caller.js'
import type {
  AnchorBody,
  CheckpointView,
  ConsistencyProofQuery,
  ConsistencyProofView,
  InclusionProofQuery,
  InclusionProofView,
  IntegrityView,
  VerifierKeyView,
} from './transparency.schemas.js'

const b64 = (hash: Buffer) => hash.toString('base64')

/**
 * The latest checkpoint; one is signed first when the tree has grown since (a fresh instance has
 * none).
 */
export async function getLatestCheckpoint(deps: Deps): Promise<CheckpointView> {
  const checkpoint = await latestCheckpoint(deps)
  if (checkpoint === null)
    throw new AppError('NOT_FOUND', { message: 'The audit log has no checkpoint yet.' })
  return {
    origin: deps.auditSigner.name,
    tree_size: checkpoint.treeSize,
    root_hash: b64(signedRootOf(checkpoint)),
    note: checkpoint.note,
    created_at: checkpoint.createdAt,
  }
}

/**
 * Refuses a size beyond the tree; stores the nodes of leaves appended since the last checkpoint,
 * which the proof may read.
 */
async function assertWithinTree(deps: Deps, field: string, size: number): Promise<void> {
  const head = await readTreeHead(deps.db)
  if (size > head.size)
    throw invalidField(field, `must be at most the current tree size, ${head.size}`)
  await materializeTree(deps.db)
}

export async function getInclusionProof(
  deps: Deps,
  query: InclusionProofQuery,
): Promise<InclusionProofView> {
  if (query.leaf_index >= query.tree_size)
    throw invalidField('leaf_index', 'must be below tree_size')
  await assertWithinTree(deps, 'tree_size', query.tree_size)
  const { proof, leaf, root } = await withStoredNodes(deps.db, (node) => ({
    proof: inclusionProof(query.leaf_index, query.tree_size, node),
    leaf: node(0, query.leaf_index),
    root: rootOf(query.tree_size, node),
  }))
  return {
    leaf_index: query.leaf_index,
    tree_size: query.tree_size,
    leaf_hash: b64(leaf),
    root_hash: b64(root),
    proof: proof.map(b64),
  }
}

export async function getConsistencyProof(
  deps: Deps,
  query: ConsistencyProofQuery,
): Promise<ConsistencyProofView> {
  if (query.first > query.second) throw invalidField('first', 'must not exceed second')
  await assertWithinTree(deps, 'second', query.second)
  const { proof, first, second } = await withStoredNodes(deps.db, (node) => ({
    proof: consistencyProof(query.first, query.second, node),
    first: rootOf(query.first, node),
    second: rootOf(query.second, node),
  }))
  return {
    first: query.first,
    second: query.second,
    first_root_hash: b64(first),
    second_root_hash: b64(second),
    proof: proof.map(b64),
  }
}

/**
 * The verifier key, and the keys before it (signing-key rotations), which stay published for the
 * older checkpoints.
 */
export async function getVerifierKeys(deps: Deps): Promise<VerifierKeyView> {
  return {
    origin: deps.auditSigner.name,
    verifier_key: deps.auditSigner.verifierKey,
    previous_verifier_keys: (await listRotations(deps)).map((r) => ({
      verifier_key: r.oldVerifierKey,
      until_tree_size: r.treeSize,
    })),
  }
}

export async function getIntegrity(deps: Deps): Promise<IntegrityView> {
  const state = await readMonitor(deps.db)
  return {
    status: state.ok === null ? 'unchecked' : state.ok ? 'ok' : 'failed',
    checked_at: state.checkedAt,
    problem: state.problem,
    tree_size: state.checkedSize,
    verifier_key: deps.auditSigner.verifierKey,
    anchored_at: state.anchoredAt,
    anchor_webhook_url: state.anchorWebhookUrl,
  }
}

/** Runs the database check now (as the hourly one does: logged, recorded, mailed on failure). */
export async function checkIntegrityNow(deps: Deps): Promise<IntegrityView> {
  await runIntegrityCheck(deps)
  return getIntegrity(deps)
}

export async function setAnchoring(
  deps: Deps,
  actor: Actor,
  body: AnchorBody,
  ctx: RequestContext,
): Promise<IntegrityView> {
  const url = body.webhook_url
  if (url !== null) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw invalidField('webhook_url', 'must be an http or https URL')
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
      throw invalidField('webhook_url', 'must be an http or https URL')
    if (parsed.username !== '' || parsed.password !== '')
      throw invalidField('webhook_url', 'must not hold credentials')
    const problem = hostLiteralProblem(parsed.hostname, deps.config.outbound)
    if (problem !== null) throw invalidField('webhook_url', `the destination ${problem}`)
  }
  await deps.db.transaction().execute(async (tx) => {
    await setAnchorWebhook(tx, url)
    // The host only: a webhook path may carry a token.
    await recordAudit(tx, deps.clock, ctx, {
      action: 'audit.anchor_update',
      actor,
      metadata: { webhook_host: url === null ? null : new URL(url).host },
    })
  })
  return getIntegrity(deps)
}
