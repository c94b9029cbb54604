/**
 * The audit log's chain of signing keys: a key rotation is an `audit.signing_key_rotate`
 * event naming the old and the new verifier key, and the checkpoint of the tree that ends with that
 * event is signed by both keys (a C2SP signed note may carry several signature lines). The old key
 * thereby vouches for the new one: its signature covers the root, the root covers the event (an
 * RFC 9162 inclusion proof of the last leaf), and the event names the new key. So a verifier that
 * trusts any key of the chain reaches the current one, and every checkpoint is checked with the key
 * that was in force at its size: key i signs the sizes from rotation i−1's checkpoint up to
 * rotation i's (both included), so a rotation checkpoint needs both keys. No database here: the
 * live check, the export and `audit verify` share it.
 */
import { leafHashOfText, verifyConsistency, verifyInclusion } from '../../lib/merkle.js'
import {
  isCanonicalHash,
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  verifyNote,
  type Checkpoint,
} from '../../lib/signed-note.js'
import type { Problem } from './verify.js'

export const KEY_ROTATION_ACTION = 'audit.signing_key_rotate'

/**
 * One rotation: the tree of `treeSize` leaves ends with the rotation event; its checkpoint is
 * signed by both keys.
 */
export interface KeyRotation {
  treeSize: number
  oldVerifierKey: string
  newVerifierKey: string
}

export interface KeyChain {
  /** Oldest first; the last is the key that signs now. */
  keys: string[]
  rotations: KeyRotation[]
}

/** The rotation an event's metadata (JSON text) names; null when it names no two keys. */
export function rotationOf(leafIndex: number, metadata: string): KeyRotation | null {
  try {
    const m = JSON.parse(metadata) as Record<string, unknown>
    if (typeof m.old_verifier_key !== 'string' || typeof m.new_verifier_key !== 'string')
      return null
    return {
      treeSize: leafIndex + 1,
      oldVerifierKey: m.old_verifier_key,
      newVerifierKey: m.new_verifier_key,
    }
  } catch {
    return null
  }
}

/**
 * The chain from the rotations, which must include `current`; a problem when the links do not join
 * up.
 */
export function keyChainOf(rotations: KeyRotation[], current: string): KeyChain | Problem {
  const keys = rotations.length === 0 ? [current] : [rotations[0]!.oldVerifierKey]
  for (const [i, rotation] of rotations.entries()) {
    if (rotation.oldVerifierKey !== keys.at(-1)) {
      return {
        index: rotation.treeSize - 1,
        kind: 'bad signature',
        detail: `key rotation ${i + 1} does not start from the key the one before it ended with`,
      }
    }
    keys.push(rotation.newVerifierKey)
  }
  // The checking key may be one the log rotated away from (an instance not yet restarted, a reader
  // with an older key): the rotations it signed lead from it to the newer keys.
  if (!keys.includes(current)) {
    return {
      index: null,
      kind: 'bad signature',
      detail: "the log's key rotations do not include the key checking it",
    }
  }
  return { keys, rotations }
}

/** The keys that must sign a checkpoint of `size`: one, or both at a rotation's size. */
export function keysAt(chain: KeyChain, size: number): string[] {
  const keys: string[] = []
  for (let i = 0; i < chain.keys.length; i++) {
    const from = i === 0 ? 0 : chain.rotations[i - 1]!.treeSize
    const to = i === chain.rotations.length ? Infinity : chain.rotations[i]!.treeSize
    if (size >= from && size <= to) keys.push(chain.keys[i]!)
  }
  return keys
}

/** True when the note carries a valid signature by every one of `keys`. */
export function signedByAll(note: string, keys: string[]): boolean {
  const parsed = parseSignedNote(note)
  if (parsed === null || keys.length === 0) return false
  return keys.every((key) => {
    const verifier = parseVerifierKey(key)
    return verifier !== null && verifyNote(parsed, verifier)
  })
}

/**
 * A rotation as a verifiable export carries it: everything `audit verify` needs to follow the chain
 * offline.
 */
export interface RotationLink {
  tree_size: number
  old_verifier_key: string
  new_verifier_key: string
  /** The checkpoint of tree_size, signed by both keys. */
  checkpoint: string
  /** The rotation event's leaf (its canonical JSON), the last leaf of that tree. */
  event: string
  /** RFC 9162 inclusion proof of that leaf in the tree of tree_size (base64). */
  inclusion_proof: string[]
  /** RFC 9162 consistency proof from tree_size to the export's checkpoint (base64). */
  consistency_proof: string[]
}

const fail = (detail: string, index: number | null = null): Problem => ({
  index,
  kind: 'bad signature',
  detail,
})

function isLink(value: unknown): value is RotationLink {
  const v = value as Partial<RotationLink> | null
  const hashes = (list: unknown) =>
    Array.isArray(list) && list.every((h) => typeof h === 'string' && isCanonicalHash(h))
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isSafeInteger(v.tree_size) &&
    v.tree_size! > 0 &&
    typeof v.old_verifier_key === 'string' &&
    typeof v.new_verifier_key === 'string' &&
    typeof v.checkpoint === 'string' &&
    typeof v.event === 'string' &&
    hashes(v.inclusion_proof) &&
    hashes(v.consistency_proof)
  )
}

/**
 * Follows an export's rotations from the key the reader trusts to the key of the export's
 * checkpoint. Each link is checked in full: its checkpoint signed by both keys, its event the last
 * leaf of that checkpoint's tree and naming exactly these keys, and that tree a prefix of the
 * export's (`head`). Returns the chain, or the problem with the first link that fails.
 */
export function followRotations(
  links: unknown,
  trusted: string,
  head: Checkpoint & { key: string },
): KeyChain | Problem {
  if (!Array.isArray(links) || !links.every(isLink))
    return { index: null, kind: 'malformed', detail: "the export's key rotations are malformed" }
  const rotations: KeyRotation[] = []
  for (const [i, link] of links.entries()) {
    const what = `key rotation ${i + 1} (tree size ${link.tree_size})`
    const note = parseSignedNote(link.checkpoint)
    const checkpoint: Checkpoint | null = note === null ? null : parseCheckpoint(note.text)
    if (
      checkpoint === null ||
      checkpoint.size !== link.tree_size ||
      checkpoint.origin !== head.origin
    )
      return fail(`${what} has no checkpoint of this log`)
    if (!signedByAll(link.checkpoint, [link.old_verifier_key, link.new_verifier_key]))
      return fail(`${what} is not signed by both its keys`)
    const leaf = leafHashOfText(link.event)
    const proof = link.inclusion_proof.map((h) => Buffer.from(h, 'base64'))
    if (!verifyInclusion(link.tree_size - 1, link.tree_size, leaf, proof, checkpoint.root))
      return fail(`${what}: its event is not the last leaf of its checkpoint`)
    let event: {
      action?: unknown
      metadata?: { old_verifier_key?: unknown; new_verifier_key?: unknown }
    }
    try {
      event = JSON.parse(link.event) as typeof event
    } catch {
      return fail(`${what}: its event cannot be read`)
    }
    if (
      event.action !== KEY_ROTATION_ACTION ||
      event.metadata?.old_verifier_key !== link.old_verifier_key ||
      event.metadata?.new_verifier_key !== link.new_verifier_key
    ) {
      return fail(`${what}: its event does not name these keys`)
    }
    if (link.tree_size > head.size)
      return {
        index: null,
        kind: 'not consistent',
        detail: `${what} is beyond the export's checkpoint`,
      }
    const consistency = link.consistency_proof.map((h) => Buffer.from(h, 'base64'))
    if (!verifyConsistency(link.tree_size, head.size, checkpoint.root, head.root, consistency)) {
      return {
        index: null,
        kind: 'not consistent',
        detail: `the export's tree does not extend ${what}`,
      }
    }
    rotations.push({
      treeSize: link.tree_size,
      oldVerifierKey: link.old_verifier_key,
      newVerifierKey: link.new_verifier_key,
    })
  }
  const chain = keyChainOf(rotations, trusted)
  if ('kind' in chain)
    return fail(
      'the export is signed by a key that is not the one given, nor reached from it by a key rotation',
    )
  if (!keysAt(chain, head.size).includes(head.key))
    return fail("the export's checkpoint is not signed by the key in force at its size")
  return chain
}
