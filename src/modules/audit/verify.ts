/**
 * Verifying the audit log: one streaming check shared by the live database, the
 * verifiable export and `switchboard audit verify`. Entries arrive in leaf order; each event's
 * leaf hash is recomputed from its content (RFC 8785 canonical JSON, RFC 9162 leaf hash) and the
 * tree is rebuilt from the leaves, and its root compared with every signed checkpoint it reaches.
 *
 * What it reports is the first bad entry and why: `edited` (content and leaf hash differ, or the
 * leaves no longer give a signed root), `missing` (a leaf, or a redacted entry no redaction record
 * names), `reordered`, `inserted` (a second entry for a leaf, or an event outside the tree),
 * `bad signature`, `not consistent` (a saved checkpoint the log does not extend), `malformed`.
 * A redacted entry (content removed, leaf hash kept) is intact only when a later `audit.redact`
 * event in the log names its leaf: removing content is itself on the record.
 */
import { Frontier, type NodeId } from '../../lib/merkle.js'
import { eventLeafHash, type LeafEvent } from './leaf.js'

export const REDACT_ACTION = 'audit.redact'

export type ProblemKind =
  'edited' | 'missing' | 'reordered' | 'inserted' | 'bad signature' | 'not consistent' | 'malformed'

export interface Problem {
  /**
   * The leaf index of the first bad entry; null when the problem is not one entry's (a signature).
   */
  index: number | null
  kind: ProblemKind
  detail: string
}

export function describeProblem(problem: Problem): string {
  return `${problem.index === null ? 'the log' : `entry ${problem.index}`}: ${problem.kind} — ${problem.detail}`
}

export interface VerifyEntry {
  index: number
  /**
   * The leaf hash stored with the entry (the database's level-0 node, the export line's); null when
   * absent.
   */
  statedHash: Buffer | null
  /** The event; null when its content was redacted. */
  event: LeafEvent | null
  /**
   * The entry's leaf was hashed by the caller from its text exactly as written, and compared with
   * statedHash (a verifiable export's lines, export-lines.ts: hashing the text as it stands, in
   * parallel, is what makes checking a million of them fast). `redacts`: the leaves it names when
   * it is a redaction record ([] when not; null when it cannot be read).
   */
  checked?: { matches: boolean; redacts: number[] | null }
}

export interface SignedRoot {
  size: number
  root: Buffer
  /** Where the root comes from, for messages ("the checkpoint of size 12"). */
  label: string
  /**
   * What a root that the leaves do not give means: `edited` for the log's own checkpoints, `not
   * consistent` for a saved one.
   */
  mismatch?: ProblemKind
}

/** The leaves an `audit.redact` event names (its metadata `leaves`). */
function redactedBy(event: LeafEvent): number[] {
  if (
    event.action !== REDACT_ACTION ||
    typeof event.metadata !== 'object' ||
    event.metadata === null
  )
    return []
  const leaves = event.metadata.leaves
  return Array.isArray(leaves) ? leaves.filter((n): n is number => Number.isSafeInteger(n)) : []
}

/**
 * Feed entries with `add` in the order they appear; `finish` when there are no more. Both return
 * the first problem (and every later call returns it again).
 */
export class LogVerifier {
  readonly #tree: Frontier
  readonly #roots: SignedRoot[]
  readonly #size: number
  readonly #start: number
  #problem: Problem | null = null
  /**
   * The first entry whose leaf index was not the next one: resolved as missing or reordered at the
   * end.
   */
  #gap: { expected: number; found: number } | null = null
  readonly #seenAfterGap = new Set<number>()
  readonly #redacted: number[] = []
  readonly #declared = new Set<number>()
  #rootsChecked = 0
  /**
   * The perfect subtrees the last `add` completed, the leaf first (for comparing with stored
   * nodes).
   */
  completed: Array<NodeId & { hash: Buffer }> = []

  /**
   * `size`: how many leaves the log must have; `roots`: signed roots to meet on the way, any order.
   * `start`: the tree of leaves already verified (the entries then begin at its size, and every
   * root must be at least that size).
   */
  constructor(size: number, roots: SignedRoot[], start: Frontier = Frontier.empty()) {
    this.#tree = new Frontier(start.size, [...start.hashes])
    this.#start = start.size
    this.#size = size
    this.#roots = [...roots].sort((a, b) => a.size - b.size)
    this.#checkRoots()
  }

  get size(): number {
    return this.#tree.size
  }

  /** A copy of the tree of the leaves added so far. */
  frontier(): Frontier {
    return new Frontier(this.#tree.size, [...this.#tree.hashes])
  }

  get problem(): Problem | null {
    return this.#problem
  }

  /** How many signed roots the leaves have met so far. */
  get rootsChecked(): number {
    return this.#rootsChecked
  }

  /** Records a problem found outside the entries (a malformed line, an event outside the tree). */
  fail(problem: Problem): Problem {
    this.#problem ??= problem
    return this.#problem
  }

  add(entry: VerifyEntry): Problem | null {
    if (this.#problem !== null) return this.#problem
    if (this.#gap !== null) {
      this.#seenAfterGap.add(entry.index)
      return null
    }
    const expected = this.#tree.size
    if (entry.index < expected) {
      return this.fail({
        index: entry.index,
        kind: 'inserted',
        detail: `a second entry for leaf ${entry.index} after leaf ${expected - 1}`,
      })
    }
    if (entry.index >= this.#size) {
      return this.fail({
        index: entry.index,
        kind: 'inserted',
        detail: `leaf ${entry.index} is beyond the tree of ${this.#size} leaves`,
      })
    }
    if (entry.index > expected) {
      this.#gap = { expected, found: entry.index }
      return null
    }
    let hash: Buffer
    if (entry.checked !== undefined) {
      if (!entry.checked.matches || entry.statedHash === null) {
        return this.fail({
          index: entry.index,
          kind: 'edited',
          detail: 'the event does not match its leaf hash',
        })
      }
      if (entry.checked.redacts === null)
        return this.fail({
          index: entry.index,
          kind: 'edited',
          detail: 'the redaction record cannot be read',
        })
      hash = entry.statedHash
      for (const leaf of entry.checked.redacts) if (leaf < entry.index) this.#declared.add(leaf)
    } else if (entry.event === null) {
      if (entry.statedHash === null)
        return this.fail({
          index: entry.index,
          kind: 'missing',
          detail: 'neither the event nor its leaf hash is there',
        })
      hash = entry.statedHash
      this.#redacted.push(entry.index)
    } else {
      try {
        hash = eventLeafHash(entry.event)
      } catch {
        return this.fail({
          index: entry.index,
          kind: 'edited',
          detail: 'the event cannot be read as an audit event',
        })
      }
      if (entry.statedHash !== null && !hash.equals(entry.statedHash)) {
        return this.fail({
          index: entry.index,
          kind: 'edited',
          detail: `event ${entry.event.id} does not match its leaf hash`,
        })
      }
      for (const leaf of redactedBy(entry.event)) if (leaf < entry.index) this.#declared.add(leaf)
    }
    this.completed = this.#tree.append(hash)
    this.#checkRoots()
    return this.#problem
  }

  #checkRoots(): void {
    while (
      this.#problem === null &&
      this.#rootsChecked < this.#roots.length &&
      this.#roots[this.#rootsChecked]!.size <= this.#tree.size
    ) {
      const signed = this.#roots[this.#rootsChecked]!
      if (signed.size === this.#tree.size && !this.#tree.root().equals(signed.root)) {
        const from =
          this.#rootsChecked === 0 ? this.#start : this.#roots[this.#rootsChecked - 1]!.size
        const firstRedacted = this.#redacted.find((i) => i >= from)
        this.fail(
          signed.mismatch === 'not consistent'
            ? {
                index: null,
                kind: 'not consistent',
                detail: `the first ${signed.size} leaves do not give the root of ${signed.label}: the log is not an extension of it`,
              }
            : {
                index: firstRedacted ?? from,
                kind: 'edited',
                detail: `leaves ${from}–${signed.size - 1} do not give the root of ${signed.label} (an entry and its leaf hash were both changed)`,
              },
        )
      }
      this.#rootsChecked++
    }
  }

  finish(): Problem | null {
    if (this.#problem !== null) return this.#problem
    if (this.#gap !== null) {
      const { expected, found } = this.#gap
      return this.fail(
        this.#seenAfterGap.has(expected)
          ? {
              index: expected,
              kind: 'reordered',
              detail: `leaf ${expected} comes after leaf ${found}`,
            }
          : { index: expected, kind: 'missing', detail: `the next entry is leaf ${found}` },
      )
    }
    if (this.#tree.size < this.#size) {
      return this.fail({
        index: this.#tree.size,
        kind: 'missing',
        detail: `the log ends after ${this.#tree.size} of ${this.#size} leaves`,
      })
    }
    const undeclared = this.#redacted.find((i) => !this.#declared.has(i))
    if (undeclared !== undefined) {
      return this.fail({
        index: undeclared,
        kind: 'missing',
        detail: 'its content is gone and no redaction record names it',
      })
    }
    return null
  }
}
