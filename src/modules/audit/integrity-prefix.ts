/**
 * The periodic integrity check without the work of the whole one (docs/decisions/0054). A check
 * that passed leaves a verified prefix: the tree of its first leaves (a multiple of BATCH, all with
 * their nodes stored), and a SHA-256 digest of every stored row that check verified there — each
 * BATCH leaves' events, leaf hashes and the nodes that end among them (read in one snapshot with
 * the rows verified), and the checkpoints below the prefix's size. The next check has the database
 * digest those rows again and compares, which costs a fraction of re-hashing the events (no rows
 * to the service on PostgreSQL; no JSON parsing, canonical JSON or tree hashing on SQLite), then
 * verifies only the leaves after the prefix, continuing the prefix's tree: their hashes, the nodes
 * they complete, every checkpoint from the prefix's size on, the head, and no event outside the
 * tree. Any digest that differs — an event, a leaf hash, a node or a checkpoint changed, added or
 * removed, or content redacted since — makes it run the whole check instead, whose result it
 * reports. The prefix lives in the process's memory only: a database writer cannot change it.
 */
import { nextTurn } from '../../lib/event-loop-turns.js'
import type { Deps } from '../../deps.js'
import {
  BATCH,
  checkDatabaseFully,
  checkingKey,
  nextPrefix,
  sampledCheckpoints,
  signedRoots,
  verifyFrom,
  checkpointsDigest,
  type CheckOutcome,
  type VerifiedPrefix,
} from './integrity.js'
import { digestLeafSpan, readTreeState } from './tree.repo.js'

/** Whether every stored row under the prefix is still what the check that made it verified. */
async function prefixUnchanged(deps: Deps, prefix: VerifiedPrefix): Promise<boolean> {
  if (!(await checkpointsDigest(deps, prefix.frontier.size)).equals(prefix.checkpointsDigest))
    return false
  for (let span = 0; span < prefix.digests.length; span++) {
    const from = span * BATCH
    if ((await digestLeafSpan(deps.db, from, from + BATCH)) !== prefix.digests[span]) return false
    // Other requests' turn between spans, as in the check itself (integrity.ts BATCH).
    await nextTurn()
  }
  return true
}

/**
 * The check from a verified prefix; the whole check when there is none, when the prefix's rows
 * changed, or when the log's key changed. Returns the result and the prefix for the next check.
 */
export async function checkSince(deps: Deps, prefix: VerifiedPrefix | null): Promise<CheckOutcome> {
  if (prefix === null || !(await prefixUnchanged(deps, prefix))) return checkDatabaseFully(deps)
  const size = prefix.frontier.size
  const next = await nextPrefix(deps)
  const sampled = await sampledCheckpoints(deps, size)
  const { verifierKey, originMismatch } = checkingKey(deps, sampled.at(-1))
  if (originMismatch !== undefined || verifierKey !== prefix.verifierKey)
    return checkDatabaseFully(deps)
  const roots = await signedRoots(deps, sampled, verifierKey, size)
  if ('kind' in roots)
    return {
      result: { ok: false, problem: roots, size: 0, checkpoints: 0 },
      prefix: null,
      from: size,
    }
  const state = await readTreeState(deps.db)
  // A head below the prefix is a log that lost leaves: the whole check says which.
  if (state.tree.size < size) return checkDatabaseFully(deps)
  return verifyFrom(deps, { verifierKey, roots, state, start: prefix, next })
}
