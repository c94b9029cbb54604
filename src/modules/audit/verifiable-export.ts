/**
 * The verifiable export: JSON Lines that `switchboard audit verify` checks offline,
 * trusting only the log's verifier key. Line 1 is the header: the signed checkpoint that covers the
 * export (made for it), the verifier key, the tree size, and whether the export is a filtered
 * subset, and the signing-key rotations that lead to the checkpoint's key (key-chain.ts). Then one
 * line per leaf in leaf order, oldest first:
 *
 *   {"leaf_index":7,"leaf_hash":"<base64>","event":{…the leaf: its canonical JSON, verbatim…}}
 *   {"leaf_index":8,"leaf_hash":"<base64>","redacted":true}
 *
 * Without filters the export has every leaf of the checkpoint's tree, so the verifier rebuilds the
 * root. With filters it has the matching events, each with its RFC 9162 inclusion proof
 * (`inclusion_proof`, base64 hashes, leaf side first) against the checkpoint. Streamed in batches
 * like the other formats: memory stays bounded by one batch.
 */
import type { Deps } from '../../deps.js'
import { inclusionProof } from '../../lib/merkle.js'
import { latestCheckpoint, withStoredNodes } from './checkpoints.js'
import type { RotationLink } from './key-chain.js'
import { rotationLinks } from './key-rotation.js'
import { leafEventOf, leafText, type LeafEvent } from './leaf.js'
import { listMatchingLeafEvents, type AuditFilter } from './repo.js'
import { listLeaves } from './tree.repo.js'

export const VERIFIABLE_EXPORT_TYPE = 'switchboard-audit-export'
const BATCH = 500

export interface ExportHeader {
  type: typeof VERIFIABLE_EXPORT_TYPE
  version: 1
  checkpoint: string
  verifier_key: string
  tree_size: number
  subset: boolean
  filters?: Record<string, unknown>
  /**
   * The signing-key rotations up to tree_size, oldest first (key-chain.ts); absent when there were
   * none.
   */
  key_rotations?: RotationLink[]
}

/**
 * One entry line. The event goes last and verbatim — its leaf, the canonical JSON that was hashed —
 * so a verifier hashes the bytes it reads instead of re-serialising a parsed copy.
 */
function entryLine(
  index: number,
  leafHashHex: string | undefined,
  event: LeafEvent | null,
  proof?: Buffer[],
): string {
  const head = `{"leaf_index":${index},"leaf_hash":"${Buffer.from(leafHashHex ?? '', 'hex').toString('base64')}"`
  if (event === null) return `${head},"redacted":true}\n`
  const proofPart =
    proof === undefined
      ? ''
      : `,"inclusion_proof":${JSON.stringify(proof.map((h) => h.toString('base64')))}`
  return `${head}${proofPart},"event":${leafText(event)}}\n`
}

async function* fullLines(deps: Deps, size: number): AsyncGenerator<string> {
  for (let from = 0; from < size; from += BATCH) {
    const to = Math.min(from + BATCH, size)
    const { nodes, events } = await listLeaves(deps.db, from, to)
    const lines: string[] = []
    for (let index = from; index < to; index++) {
      const stored = events.get(index)
      lines.push(
        entryLine(index, nodes.get(index), stored === undefined ? null : leafEventOf(stored)),
      )
    }
    yield lines.join('')
  }
}

async function* subsetLines(deps: Deps, filter: AuditFilter, size: number): AsyncGenerator<string> {
  for (let after = -1; ;) {
    const rows = await listMatchingLeafEvents(deps.db, filter, after, size, BATCH)
    if (rows.length === 0) return
    const { nodes } = await listLeaves(deps.db, rows[0]!.leaf_index, rows.at(-1)!.leaf_index + 1)
    const proofs = await withStoredNodes(deps.db, (node) =>
      rows.map((row) => inclusionProof(row.leaf_index, size, node)),
    )
    yield rows
      .map(({ leaf_index: index, ...stored }, i) =>
        entryLine(index, nodes.get(index), leafEventOf(stored), proofs[i]),
      )
      .join('')
    if (rows.length < BATCH) return
    after = rows.at(-1)!.leaf_index
  }
}

/**
 * The export's lines; call after the export itself was audited, so the checkpoint made here covers
 * it.
 */
export async function verifiableExportLines(
  deps: Deps,
  filter: AuditFilter,
  filters: Record<string, unknown>,
): Promise<AsyncGenerator<string>> {
  const checkpoint = await latestCheckpoint(deps)
  const size = checkpoint?.treeSize ?? 0
  const subset = Object.keys(filter).length > 0
  const rotations = await rotationLinks(deps, size)
  const header: ExportHeader = {
    type: VERIFIABLE_EXPORT_TYPE,
    version: 1,
    checkpoint: checkpoint?.note ?? '',
    verifier_key: deps.auditSigner.verifierKey,
    tree_size: size,
    subset,
    ...(subset && { filters }),
    ...(rotations.length > 0 && { key_rotations: rotations }),
  }
  return (async function* () {
    yield `${JSON.stringify(header)}\n`
    yield* subset ? subsetLines(deps, filter, size) : fullLines(deps, size)
  })()
}
