/**
 * Differential: our RFC 9162 proofs against independent implementations, for random trees
 * of 1 to 10,000 leaves. Inclusion proofs are verified by @sigstore/verify (Sigstore's RFC 6962
 * verifier for Rekor). Consistency proofs are made and verified by @transmute/rfc9162 (an RFC 9162
 * implementation over the plain list of entries): its proofs must verify with ours and ours with
 * its verifier, and both must equal the RFC's recursive definitions (§2.1.1 MTH, §2.1.4.1
 * SUBPROOF) written out below. Both packages are devDependencies used only here.
 *
 * One documented difference: @transmute/rfc9162 leaves out RFC 9162 §2.1.4.2 step 2 (prepend the
 * first root when the first size is a power of two) and puts that root into its proofs instead
 * (its SUBPROOF ignores the b flag). Its proof for such a size is therefore ours with the first
 * root in front; the test maps between the two forms, and checks that this is the only difference.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fc from 'fast-check'
import { RFC9162 as transmute } from '@transmute/rfc9162'
import { describe, expect, it } from 'vitest'
import {
  consistencyProof,
  EMPTY_ROOT,
  Frontier,
  inclusionProof,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type NodeReader,
} from './merkle.js'

interface SigstoreMerkle {
  verifyMerkleInclusion(
    entry: { inclusionProof: { logIndex: string; hashes: Buffer[] }; canonicalizedBody: Buffer },
    checkpoint: { logSize: bigint; logHash: Buffer },
  ): void
}
const sigstore = createRequire(import.meta.url)(
  '@sigstore/verify/dist/tlog/merkle.js',
) as SigstoreMerkle

const sha = (...parts: Buffer[]) =>
  parts.reduce((h, p) => h.update(p), createHash('sha256')).digest()

/**
 * RFC 9162 §2.1.1, literally: MTH(D[start:end]) over the leaves' data. Memoised by range only to
 * keep thousands of random trees fast; the recursion is the RFC's.
 */
function referenceTree(leaves: Buffer[]) {
  const memo = new Map<string, Buffer>()
  const mth = (start: number, end: number): Buffer => {
    const key = `${start}:${end}`
    const known = memo.get(key)
    if (known !== undefined) return known
    let hash: Buffer
    if (end - start === 0) hash = sha()
    else if (end - start === 1) hash = sha(Buffer.of(0), leaves[start]!)
    else {
      let k = 1
      while (k * 2 < end - start) k *= 2
      hash = sha(Buffer.of(1), mth(start, start + k), mth(start + k, end))
    }
    memo.set(key, hash)
    return hash
  }
  /** RFC 9162 §2.1.4.1, literally: SUBPROOF(m, D[start:end], b). */
  const subproof = (m: number, start: number, end: number, complete: boolean): Buffer[] => {
    const n = end - start
    if (m === n) return complete ? [] : [mth(start, end)]
    let k = 1
    while (k * 2 < n) k *= 2
    if (m <= k) return [...subproof(m, start, start + k, complete), mth(start + k, end)]
    return [...subproof(m - k, start + k, end, false), mth(start, start + k)]
  }
  return { mth, subproof }
}

/** A tree as the database keeps it: every perfect subtree's hash, written by appending leaves. */
function storedTree(leaves: Buffer[]): { node: NodeReader; frontier: Frontier } {
  const nodes = new Map<string, Buffer>()
  const frontier = Frontier.empty()
  for (const leaf of leaves)
    for (const n of frontier.append(leafHash(leaf))) nodes.set(`${n.level}:${n.index}`, n.hash)
  return {
    frontier,
    node: (level, index) => {
      const hash = nodes.get(`${level}:${index}`)
      if (hash === undefined) throw new Error(`no node ${level}:${index}`)
      return hash
    },
  }
}

const randomLeaves = (n: number) =>
  Array.from({ length: n }, (_, i) => Buffer.concat([Buffer.from(`event ${i} `), randomBytes(8)]))

describe('RFC 9162 Merkle tree (lib/merkle.ts)', () => {
  it('the empty tree hashes to SHA-256 of nothing; roots match the RFC definition for every size up to 300', () => {
    expect(EMPTY_ROOT.toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    )
    const leaves = randomLeaves(300)
    const { node, frontier } = storedTree(leaves)
    const reference = referenceTree(leaves)
    expect(frontier.root().equals(reference.mth(0, 300))).toBe(true)
    for (let size = 0; size <= 300; size++)
      expect(rootOf(size, node).equals(reference.mth(0, size)), `size ${size}`).toBe(true)
  })

  it('inclusion proofs verify with @sigstore/verify and with ours, for random trees of 1 to 10,000 leaves', () => {
    const big = randomLeaves(10_000)
    const { node } = storedTree(big)
    const reference = referenceTree(big)
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 1, max: 10_000 }),
          fc.constantFrom(1, 2, 3, 1024, 1025, 4095, 8192, 10_000),
        ),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (size, at) => {
          const index = Math.floor(at * size)
          const root = reference.mth(0, size)
          const proof = inclusionProof(index, size, node)
          // Throws on a proof it does not accept.
          sigstore.verifyMerkleInclusion(
            {
              inclusionProof: { logIndex: String(index), hashes: proof },
              canonicalizedBody: big[index]!,
            },
            { logSize: BigInt(size), logHash: root },
          )
          expect(verifyInclusion(index, size, leafHash(big[index]!), proof, root)).toBe(true)
          expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(size)))
          // A wrong leaf, index or root is refused by both.
          const other = leafHash(Buffer.from('not this leaf'))
          expect(verifyInclusion(index, size, other, proof, root)).toBe(false)
          expect(() =>
            sigstore.verifyMerkleInclusion(
              {
                inclusionProof: { logIndex: String(index), hashes: proof },
                canonicalizedBody: Buffer.from('not this leaf'),
              },
              { logSize: BigInt(size), logHash: root },
            ),
          ).toThrow()
          if (size > 1)
            expect(
              verifyInclusion((index + 1) % size, size, leafHash(big[index]!), proof, root),
            ).toBe(false)
        },
      ),
      { numRuns: 300, seed: 30 },
    )
  })

  it('consistency proofs equal the RFC definition and verify, for random pairs of sizes up to 10,000; altered ones do not', () => {
    const big = randomLeaves(10_000)
    const { node } = storedTree(big)
    const reference = referenceTree(big)
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (second, at) => {
          const first = Math.max(1, Math.floor(at * second))
          const proof = consistencyProof(first, second, node)
          const expected = first === second ? [] : reference.subproof(first, 0, second, true)
          expect(proof.map((h) => h.toString('hex'))).toEqual(
            expected.map((h) => h.toString('hex')),
          )
          const [oldRoot, newRoot] = [reference.mth(0, first), reference.mth(0, second)]
          expect(verifyConsistency(first, second, oldRoot, newRoot, proof)).toBe(true)
          if (proof.length > 0) {
            const altered = proof.map((h, i) => (i === proof.length - 1 ? leafHash(h) : h))
            expect(verifyConsistency(first, second, oldRoot, newRoot, altered)).toBe(false)
            expect(verifyConsistency(first, second, newRoot, oldRoot, proof)).toBe(false)
          }
        },
      ),
      { numRuns: 300, seed: 3 },
    )
  })

  it('consistency proofs agree with @transmute/rfc9162 both ways, for random pairs of sizes up to 10,000', async () => {
    const big = randomLeaves(10_000)
    const { node } = storedTree(big)
    const reference = referenceTree(big)
    const powerOfTwo = (n: number) => (n & (n - 1)) === 0
    /**
     * Our proof in the package's form: with the first root in front when the first size is a power
     * of two.
     */
    const theirForm = (first: number, proof: Buffer[]) =>
      powerOfTwo(first) ? [reference.mth(0, first), ...proof] : proof
    const theirVerify = (first: number, second: number, path: Uint8Array[]) =>
      transmute.verifyConsistencyProof(reference.mth(0, first), reference.mth(0, second), {
        log_id: '',
        tree_size_1: first,
        tree_size_2: second,
        consistency_path: path,
      })
    const pairs = fc.tuple(
      fc.oneof(
        fc.integer({ min: 2, max: 10_000 }),
        fc.constantFrom(2, 3, 1024, 1025, 4096, 8193, 10_000),
      ),
      fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
    )
    const firstOf = ([second, at]: [number, number]) => Math.max(1, Math.floor(at * second))

    // Ours verify with theirs (cheap: many pairs); a changed hash or swapped roots are refused by
    // theirs too.
    let verified = 0
    await fc.assert(
      fc.asyncProperty(pairs, async (pair) => {
        const second = pair[0]
        const first = Math.min(firstOf(pair), second - 1)
        const proof = consistencyProof(first, second, node)
        expect(
          await theirVerify(first, second, theirForm(first, proof)),
          `${first} → ${second}`,
        ).toBe(true)
        const altered = theirForm(first, proof).map((h, i, all) =>
          i === all.length - 1 ? leafHash(h) : h,
        )
        expect(await theirVerify(first, second, altered).catch(() => false)).toBe(false)
        verified++
      }),
      { numRuns: 1000, seed: 9162 },
    )
    expect(verified).toBeGreaterThanOrEqual(1000)

    // Theirs (made from the entries, hashing them itself) verify with ours, and equal ours in our
    // form. The package recomputes every subtree from the entries (about 2 s for a pair near 10,000
    // on a loaded machine), so large trees get fewer runs than small ones.
    const smallPairs = fc.tuple(
      fc.integer({ min: 2, max: 300 }),
      fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
    )
    const theirProofCheck = async (pair: [number, number]) => {
      const second = pair[0]
      const first = Math.min(firstOf(pair), second - 1)
      const entries = big.slice(0, second)
      const theirs = (await transmute.PROOF(first, entries)).map((h) => Buffer.from(h))
      const theirRoot = Buffer.from(await transmute.MTH(entries))
      expect(theirRoot.equals(reference.mth(0, second))).toBe(true)
      const asOurs = powerOfTwo(first) ? theirs.slice(1) : theirs
      if (powerOfTwo(first)) expect(theirs[0]!.equals(reference.mth(0, first))).toBe(true)
      expect(
        verifyConsistency(first, second, reference.mth(0, first), theirRoot, asOurs),
        `${first} → ${second}`,
      ).toBe(true)
      expect(asOurs.map((h) => h.toString('hex'))).toEqual(
        consistencyProof(first, second, node).map((h) => h.toString('hex')),
      )
    }
    await fc.assert(fc.asyncProperty(pairs, theirProofCheck), { numRuns: 20, seed: 6962 })
    await fc.assert(fc.asyncProperty(smallPairs, theirProofCheck), { numRuns: 200, seed: 6963 })
  }, 300_000)

  it('at 1,000,000 leaves an inclusion proof has at most 20 hashes, a consistency proof at most 21', () => {
    // Only the nodes the proofs read are needed: a reader that makes any node up stands in for the
    // tree.
    const node: NodeReader = (level, index) => sha(Buffer.from(`${level}:${index}`))
    let inclusion = 0
    for (let index = 0; index < 1_000_000; index += 4999)
      inclusion = Math.max(inclusion, inclusionProof(index, 1_000_000, node).length)
    inclusion = Math.max(inclusion, inclusionProof(999_999, 1_000_000, node).length)
    expect(inclusion).toBe(20)
    // ceil(log2 n) hashes, plus the old tree's own subtree hash when its size is not a power of
    // two.
    let consistency = 0
    for (let first = 1; first < 1_000_000; first += 4999)
      consistency = Math.max(consistency, consistencyProof(first, 1_000_000, node).length)
    expect(consistency).toBeLessThanOrEqual(21)
  })
})
