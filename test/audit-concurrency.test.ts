/**
 * Several instances append to one audit Merkle tree without gaps or duplicates. 200
 * concurrent audited changes, sent to two application instances on one database (each with its own
 * connection pool — on PostgreSQL, really concurrent transactions), give exactly 200 new leaves
 * with consecutive numbers, each with its leaf hash, and a signed checkpoint covers them.
 */
import { describe, expect, it } from 'vitest'
import { checkDatabase } from '../src/modules/audit/integrity.js'
import {
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  verifyNote,
} from '../src/lib/signed-note.js'
import { startPeerInstance, useTestApp } from './helpers/app.js'
import { bearer, createSignedInUser } from './helpers/factories.js'

// Enough connections that requests queue on the tree head's row lock (what is tested), not for a
// connection.
const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0', DATABASE_POOL_SIZE: '20' } })

describe('concurrent appends from two instances', () => {
  it('200 concurrent audited changes become exactly 200 consecutive leaves, covered by a checkpoint', async () => {
    const peer = await startPeerInstance(t, { DATABASE_POOL_SIZE: '20' })
    try {
      const users = await Promise.all(Array.from({ length: 20 }, () => createSignedInUser(t)))
      const before = Number(
        (await t.deps.db.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow())
          .size,
      )

      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0 ? t.app : peer.app).inject({
            method: 'PATCH',
            url: '/api/users/me',
            headers: bearer(users[i % users.length]!.token),
            payload: { name: `Name ${i}` },
          }),
        ),
      )
      expect(responses.map((r) => r.statusCode)).toEqual(Array(200).fill(200))

      const head = Number(
        (await t.deps.db.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow())
          .size,
      )
      expect(head).toBe(before + 200)
      const leaves = await t.deps.db
        .selectFrom('audit_events')
        .select(['leaf_index', 'action'])
        .where('leaf_index', '>=', before)
        .orderBy('leaf_index')
        .execute()
      expect(leaves.map((l) => Number(l.leaf_index))).toEqual(
        Array.from({ length: 200 }, (_, i) => before + i),
      )
      expect(leaves.every((l) => l.action === 'user.update')).toBe(true)
      // Each instance checkpoints every second: within a few seconds one covers all 200, signed by
      // the log's key.
      let covering: { tree_size: number; note: string } | undefined
      for (let i = 0; i < 100 && covering === undefined; i++) {
        covering = await t.deps.db
          .selectFrom('audit_checkpoints')
          .select(['tree_size', 'note'])
          .where('tree_size', '>=', before + 200)
          .executeTakeFirst()
        if (covering === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(covering, 'a checkpoint covering the new leaves').toBeDefined()
      const note = parseSignedNote(covering!.note)!
      expect(parseCheckpoint(note.text)!.size).toBe(Number(covering!.tree_size))
      expect(verifyNote(note, parseVerifierKey(t.deps.auditSigner.verifierKey)!)).toBe(true)
      // The leaf hashes are stored by the checkpoint (not in each change's transaction): one per
      // leaf.
      const hashes = await t.deps.db
        .selectFrom('audit_tree_nodes')
        .select('idx')
        .where('level', '=', 0)
        .where('idx', '>=', before)
        .execute()
      expect(hashes.map((h) => Number(h.idx)).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 200 }, (_, i) => before + i),
      )
      expect(await checkDatabase(t.deps)).toMatchObject({
        ok: true,
        problem: null,
        size: before + 200,
      })
    } finally {
      await peer.close()
    }
  }, 120_000)
})
