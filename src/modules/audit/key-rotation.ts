/**
 * Rotating the audit log's signing key (the chain's rules are in key-chain.ts). One
 * transaction appends the `audit.signing_key_rotate` event (naming the old and the new verifier
 * key) and stores the checkpoint of the tree that ends with it, signed by the old key and then the
 * new one; the tree head stays locked from the event to the commit, so that checkpoint is exactly
 * the tree up to the rotation. From then on only the new key signs: an instance still holding the
 * old key takes the new one from secrets.json, or — its key given in the environment — refuses to
 * checkpoint (checkpoints.ts) until it is restarted with the new one. The old
 * verifier keys stay published (GET …/verifier-key, every verifiable export).
 */
import type { Deps } from '../../deps.js'
import { consistencyProof, inclusionProof } from '../../lib/merkle.js'
import { checkpointText } from '../../lib/signed-note.js'
import {
  assertLogKey,
  InconsistentTreeError,
  makeCheckpoint,
  withStoredNodes,
} from './checkpoints.js'
import {
  KEY_ROTATION_ACTION,
  keyChainOf,
  rotationOf,
  type KeyChain,
  type KeyRotation,
  type RotationLink,
} from './key-chain.js'
import { leafEventOf, leafText } from './leaf.js'
import { recordAudit } from './service.js'
import { createAuditSigner } from './signer.js'
import {
  findCheckpointsOfSizes,
  insertCheckpoint,
  listKeyRotations,
  listLeaves,
  readTreeHead,
} from './tree.repo.js'
import type { Problem } from './verify.js'

export interface RotationResult {
  oldVerifierKey: string
  newVerifierKey: string
  /** The size of the checkpoint signed by both keys (its last leaf is the rotation event). */
  treeSize: number
}

/**
 * Rotates from `deps.auditSigner` to `newSigningKey` (base64 PKCS #8 Ed25519); `via` names who
 * asked.
 */
export async function rotateSigningKey(
  deps: Deps,
  newSigningKey: string,
  via: string,
): Promise<RotationResult> {
  const oldSigner = deps.auditSigner
  const newSigner = createAuditSigner(deps.config.publicUrl, newSigningKey)
  if (newSigner.verifierKey === oldSigner.verifierKey)
    throw new InconsistentTreeError('the new audit signing key is the current one')
  // The old key first signs what it has seen, after checking the tree extends its last checkpoint:
  // a log that no longer matches its checkpoints is never handed over to a new key.
  const last = await makeCheckpoint(deps)
  if (last !== null) assertLogKey(oldSigner, last)
  const chain = await loadKeyChain(deps)
  if ('kind' in chain)
    throw new InconsistentTreeError(`the audit log's key chain is broken: ${chain.detail}`)
  return deps.db.transaction().execute(async (tx) => {
    await recordAudit(
      tx,
      deps.clock,
      { ip: null, userAgent: null },
      {
        action: KEY_ROTATION_ACTION,
        actor: null,
        metadata: {
          via,
          old_verifier_key: oldSigner.verifierKey,
          new_verifier_key: newSigner.verifierKey,
        },
      },
    )
    // Read inside the transaction that holds the head's lock since the append.
    const head = await readTreeHead(tx)
    const text = checkpointText({ origin: oldSigner.name, size: head.size, root: head.root() })
    await insertCheckpoint(tx, {
      treeSize: head.size,
      note: `${text}\n${oldSigner.sign(text)}${newSigner.sign(text)}`,
      createdAt: deps.clock.now().toISOString(),
    })
    return {
      oldVerifierKey: oldSigner.verifierKey,
      newVerifierKey: newSigner.verifierKey,
      treeSize: head.size,
    }
  })
}

/**
 * The rotations the log records, in order. One whose metadata names no two keys is kept with empty
 * keys, so the chain breaks where it is (reported by the checks) instead of the rotation being
 * skipped.
 */
export async function listRotations(deps: Deps): Promise<KeyRotation[]> {
  return (await listKeyRotations(deps.db)).map(
    (r) =>
      rotationOf(r.leafIndex, r.metadata) ?? {
        treeSize: r.leafIndex + 1,
        oldVerifierKey: '',
        newVerifierKey: '',
      },
  )
}

/**
 * The chain of keys from the log's rotations to this instance's key (or `verifierKey`); a problem
 * when they do not join up.
 */
export async function loadKeyChain(
  deps: Deps,
  verifierKey = deps.auditSigner.verifierKey,
): Promise<KeyChain | Problem> {
  return keyChainOf(await listRotations(deps), verifierKey)
}

/**
 * Every rotation up to `size`, with the proofs an offline verifier needs to follow it (verifiable
 * export).
 */
export async function rotationLinks(deps: Deps, size: number): Promise<RotationLink[]> {
  const rotations = (await listRotations(deps)).filter((r) => r.treeSize <= size)
  if (rotations.length === 0) return []
  const checkpoints = new Map(
    (
      await findCheckpointsOfSizes(
        deps.db,
        rotations.map((r) => r.treeSize),
      )
    ).map((c) => [c.treeSize, c.note]),
  )
  const links: RotationLink[] = []
  for (const rotation of rotations) {
    const { events } = await listLeaves(deps.db, rotation.treeSize - 1, rotation.treeSize)
    const stored = events.get(rotation.treeSize - 1)
    const { inclusion, consistency } = await withStoredNodes(deps.db, (node) => ({
      inclusion: inclusionProof(rotation.treeSize - 1, rotation.treeSize, node),
      consistency: consistencyProof(rotation.treeSize, size, node),
    }))
    links.push({
      tree_size: rotation.treeSize,
      old_verifier_key: rotation.oldVerifierKey,
      new_verifier_key: rotation.newVerifierKey,
      // A missing checkpoint or event is left for `verify` to report as a broken link.
      checkpoint: checkpoints.get(rotation.treeSize) ?? '',
      event: stored === undefined ? '' : leafText(leafEventOf(stored)),
      inclusion_proof: inclusion.map((h) => h.toString('base64')),
      consistency_proof: consistency.map((h) => h.toString('base64')),
    })
  }
  return links
}
