/**
 * Merkle tree hashing and proofs as RFC 9162 §2.1 (RFC 6962 §2.1) defines them: leaf hash
 * SHA-256(0x00 ‖ leaf), node hash SHA-256(0x01 ‖ left ‖ right), the empty tree's hash SHA-256(""),
 * a tree of n leaves split at the largest power of two smaller than n. Promises: the proofs this
 * module makes verify with any RFC 9162 verifier, and its verifiers accept exactly the proofs the
 * RFC's algorithms (§2.1.3.2, §2.1.4.2) accept.
 *
 * Trees are stored as their *perfect* subtrees: node (level, index) is the hash of leaves
 * [index·2^level, (index+1)·2^level). Every subtree hash a proof needs is a fold of at most
 * log2(n) such nodes, so proofs are made from O(log n) stored hashes, never from the leaves.
 */
import { hash } from 'node:crypto'

export const HASH_BYTES = 32

// crypto.hash (one call, no Hash object) is several times cheaper than createHash for inputs this
// small, which is what verifying a million-event export spends its time on.
const LEAF_PREFIX = Buffer.of(0)
const NODE_INPUT = Buffer.alloc(1 + 2 * HASH_BYTES)
NODE_INPUT[0] = 1

export function leafHash(leaf: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([LEAF_PREFIX, leaf]), 'buffer')
}

/** The leaf hash of UTF-8 text (a leaf's canonical JSON), without encoding it separately first. */
export function leafHashOfText(leaf: string): Buffer {
  return hash('sha256', `\u0000${leaf}`, 'buffer')
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  NODE_INPUT.set(left, 1)
  NODE_INPUT.set(right, 1 + HASH_BYTES)
  return hash('sha256', NODE_INPUT, 'buffer')
}

export const EMPTY_ROOT: Buffer = hash('sha256', Buffer.alloc(0), 'buffer')

export interface NodeId {
  level: number
  index: number
}

/** Reads a stored perfect-subtree hash; throws when it is missing. */
export type NodeReader = (level: number, index: number) => Buffer

/** The largest power of two strictly smaller than n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0
}

/**
 * MTH(D[start:end]) from stored perfect subtrees (the RFC's left parts are always perfect and
 * aligned).
 */
export function rangeHash(start: number, end: number, node: NodeReader): Buffer {
  const size = end - start
  if (isPowerOfTwo(size) && start % size === 0) return node(Math.log2(size), start / size)
  const k = splitPoint(size)
  return nodeHash(rangeHash(start, start + k, node), rangeHash(start + k, end, node))
}

/** The tree head of `size` leaves. */
export function rootOf(size: number, node: NodeReader): Buffer {
  return size === 0 ? EMPTY_ROOT : rangeHash(0, size, node)
}

/** PATH(m, D[start:end]), RFC 9162 §2.1.3.1. */
function path(m: number, start: number, end: number, node: NodeReader): Buffer[] {
  if (end - start <= 1) return []
  const k = splitPoint(end - start)
  if (m < k) return [...path(m, start, start + k, node), rangeHash(start + k, end, node)]
  return [...path(m - k, start + k, end, node), rangeHash(start, start + k, node)]
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves, leaf side first. */
export function inclusionProof(index: number, size: number, node: NodeReader): Buffer[] {
  if (!(index >= 0 && index < size))
    throw new RangeError('the leaf index must be below the tree size')
  return path(index, 0, size, node)
}

/** SUBPROOF(m, D[start:end], b), RFC 9162 §2.1.4.1. */
function subproof(
  m: number,
  start: number,
  end: number,
  complete: boolean,
  node: NodeReader,
): Buffer[] {
  const n = end - start
  if (m === n) return complete ? [] : [rangeHash(start, end, node)]
  const k = splitPoint(n)
  if (m <= k)
    return [...subproof(m, start, start + k, complete, node), rangeHash(start + k, end, node)]
  return [...subproof(m - k, start + k, end, false, node), rangeHash(start, start + k, node)]
}

/** The consistency proof between the trees of `oldSize` and `newSize` leaves. */
export function consistencyProof(oldSize: number, newSize: number, node: NodeReader): Buffer[] {
  if (!(oldSize >= 0 && oldSize <= newSize))
    throw new RangeError('the first size must not exceed the second')
  if (oldSize === 0 || oldSize === newSize) return []
  return subproof(oldSize, 0, newSize, true, node)
}

/**
 * The stored nodes a computation reads, found by running it once over placeholder hashes: a caller
 * fetches them in one query, then runs it again over the real ones.
 */
export function nodesRead(compute: (node: NodeReader) => unknown): NodeId[] {
  const seen = new Map<string, NodeId>()
  const placeholder = Buffer.alloc(HASH_BYTES)
  compute((level, index) => {
    seen.set(`${level}:${index}`, { level, index })
    return placeholder
  })
  return [...seen.values()]
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}

/**
 * RFC 9162 §2.1.3.2: does `proof` show leaf hash `leaf` at `index` in the tree of `size` with
 * `root`?
 */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size))
    return false
  let fn = index
  let sn = size - 1
  let r: Uint8Array = leaf
  for (const p of proof) {
    if (sn === 0) return false
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r)
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2)
          sn = Math.floor(sn / 2)
        }
      }
    } else r = nodeHash(r, p)
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  return sn === 0 && sameHash(r, root)
}

/**
 * RFC 9162 §2.1.4.2: is the tree (newSize, newRoot) an append-only extension of (oldSize, oldRoot)?
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!(
    Number.isSafeInteger(oldSize) &&
    Number.isSafeInteger(newSize) &&
    oldSize >= 0 &&
    oldSize <= newSize
  ))
    return false
  if (oldSize === newSize) return proof.length === 0 && sameHash(oldRoot, newRoot)
  if (oldSize === 0) return proof.length === 0
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof]
  if (path.length === 0) return false
  let fn = oldSize - 1
  let sn = newSize - 1
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  let fr: Uint8Array = path[0]!
  let sr: Uint8Array = path[0]!
  for (const c of path.slice(1)) {
    if (sn === 0) return false
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr)
      sr = nodeHash(c, sr)
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2)
          sn = Math.floor(sn / 2)
        }
      }
    } else sr = nodeHash(sr, c)
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  return sn === 0 && sameHash(fr, oldRoot) && sameHash(sr, newRoot)
}

/**
 * The compact form of a growing tree: the hashes of the perfect subtrees that make up its n leaves,
 * largest first (one per set bit of n). Appending a leaf merges equal-sized subtrees, like a binary
 * counter's carry, and yields each perfect node it completes.
 */
export class Frontier {
  constructor(
    public size: number,
    public readonly hashes: Buffer[],
  ) {}

  static empty(): Frontier {
    return new Frontier(0, [])
  }

  /** Appends a leaf hash; returns the nodes it completed, the leaf itself (level 0) first. */
  append(leaf: Buffer): Array<NodeId & { hash: Buffer }> {
    const index = this.size
    const completed = [{ level: 0, index, hash: leaf }]
    let carry = leaf
    for (let level = 0; Math.floor(index / 2 ** level) % 2 === 1; level++) {
      carry = nodeHash(this.hashes.pop()!, carry)
      completed.push({ level: level + 1, index: Math.floor(index / 2 ** (level + 1)), hash: carry })
    }
    this.hashes.push(carry)
    this.size = index + 1
    return completed
  }

  /**
   * The stored nodes that make up the tree of `size` leaves (the frontier's hashes, largest first).
   */
  static nodesOf(size: number): NodeId[] {
    const nodes: NodeId[] = []
    let start = 0
    for (let level = Math.floor(Math.log2(Math.max(size, 1))); level >= 0; level--) {
      const width = 2 ** level
      if (start + width > size) continue
      nodes.push({ level, index: start / width })
      start += width
    }
    return nodes
  }

  equals(other: Frontier): boolean {
    return (
      this.size === other.size &&
      this.hashes.length === other.hashes.length &&
      this.hashes.every((h, i) => h.equals(other.hashes[i]!))
    )
  }

  root(): Buffer {
    if (this.hashes.length === 0) return EMPTY_ROOT
    let root = this.hashes.at(-1)!
    for (let i = this.hashes.length - 2; i >= 0; i--) root = nodeHash(this.hashes[i]!, root)
    return root
  }
}
