/**
 * Rotating the audit log's signing key. `switchboard audit rotate-key` records the
 * rotation as an audited event whose checkpoint is signed by the old and the new key; an instance
 * still on the old key stops signing, one restarted on the new key goes on; the database check and
 * `audit verify` accept the chain across the rotation (given the old key or the new one, and a
 * checkpoint saved before it), the old verifier key stays published, and a broken link is found.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { startInstance, useTestApp, type TestContext } from '../../../test/helpers/app.js'
import { makeTempDir } from '../../../test/helpers/database.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { runCli } from '../../cli.js'
import {
  generateSigningKey,
  parseSignedNote,
  parseVerifierKey,
  verifyNote,
} from '../../lib/signed-note.js'
import { InconsistentTreeError, makeCheckpoint } from './checkpoints.js'
import { checkDatabase } from './integrity.js'
import { insertAuditEvents, type AuditEvent } from './repo.js'
import { createAuditSigner } from './signer.js'

function event(i: number): AuditEvent {
  return {
    at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
    actorId: null,
    actorEmail: null,
    action: 'test.rotation',
    targetType: null,
    targetId: `thing-${i}`,
    ip: null,
    userAgent: null,
    subjectUserId: null,
    metadata: { i },
  }
}

async function cli(
  env: Record<string, string>,
  args: string[],
  stdin = '',
): Promise<{ code: number; out: string }> {
  let out = ''
  const io = {
    env,
    stdin: Readable.from([stdin]),
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
  }
  return { code: await runCli(args, io), out }
}

async function exportOf(
  app: TestContext['app'],
  token: string,
): Promise<{ file: string; lines: string[] }> {
  const response = await app.inject({
    method: 'GET',
    url: '/api/admin/audit-log/export?format=verifiable',
    headers: bearer(token),
  })
  expect(response.statusCode).toBe(200)
  const file = path.join(makeTempDir(), 'export.jsonl')
  fs.writeFileSync(file, response.body)
  return { file, lines: response.body.trimEnd().split('\n') }
}

const signedBy = (note: string, key: string) =>
  verifyNote(parseSignedNote(note)!, parseVerifierKey(key)!)

describe('audit signing-key rotation, key in the secrets file', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

  it('signs the rotation with both keys, hands signing to the new key, and every check follows the chain', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await insertAuditEvents(t.deps.db, [event(1), event(2), event(3)])
    const oldKey = t.deps.auditSigner.verifierKey
    const before = (await makeCheckpoint(t.deps))!
    const savedFile = path.join(makeTempDir(), 'saved.checkpoint')
    fs.writeFileSync(savedFile, before.note)
    const secretsFile = path.join(t.env.DATA_DIR!, 'secrets.json')
    const oldPrivate = JSON.parse(fs.readFileSync(secretsFile, 'utf8')).audit_signing_key as string

    const rotated = await cli(t.env, ['audit', 'rotate-key'])
    expect(rotated.code, rotated.out).toBe(0)
    const newKey = /new verifier key: (\S+)/.exec(rotated.out)![1]!
    expect(rotated.out).toContain(`old verifier key (stays published): ${oldKey}`)
    expect(rotated.out).toContain(`the new key is in ${secretsFile}`)
    const newPrivate = JSON.parse(fs.readFileSync(secretsFile, 'utf8')).audit_signing_key as string
    expect(newPrivate).not.toBe(oldPrivate)
    expect(createAuditSigner(t.env.PUBLIC_URL!, newPrivate).verifierKey).toBe(newKey)
    expect(rotated.out).not.toContain(newPrivate)

    // The rotation is the last leaf of a checkpoint signed by both keys, old first.
    const treeSize = Number(/checkpoint of (\d+) events/.exec(rotated.out)![1])
    const rotation = await t.deps.db
      .selectFrom('audit_events')
      .select(['leaf_index', 'action', 'metadata', 'actor_id'])
      .where('action', '=', 'audit.signing_key_rotate')
      .executeTakeFirstOrThrow()
    expect(Number(rotation.leaf_index)).toBe(treeSize - 1)
    expect(JSON.parse(rotation.metadata)).toEqual({
      via: 'cli',
      old_verifier_key: oldKey,
      new_verifier_key: newKey,
    })
    const dual = await t.deps.db
      .selectFrom('audit_checkpoints')
      .select('note')
      .where('tree_size', '=', treeSize)
      .executeTakeFirstOrThrow()
    expect(parseSignedNote(dual.note)!.signatures).toHaveLength(2)
    expect(signedBy(dual.note, oldKey) && signedBy(dual.note, newKey)).toBe(true)

    // The running instance, not restarted, picks the new key up from the secrets file at its next
    // checkpoint (it answered GET …/checkpoint with a 500 before); a restarted one starts with it.
    await insertAuditEvents(t.deps.db, [event(4)])
    const served = await t.app.inject({
      method: 'GET',
      url: '/api/admin/audit-log/checkpoint',
      headers: bearer(admin.token),
    })
    expect(served.statusCode, served.body).toBe(200)
    expect(served.json().tree_size).toBe(treeSize + 1)
    expect(signedBy(served.json().note, newKey)).toBe(true)
    expect(signedBy(served.json().note, oldKey)).toBe(false)
    expect(t.deps.auditSigner.verifierKey).toBe(newKey)
    const restarted = await startInstance(t.env, t.clock)
    try {
      expect(restarted.deps.auditSigner.verifierKey).toBe(newKey)
      await insertAuditEvents(t.deps.db, [event(5)])
      const after = (await makeCheckpoint(restarted.deps))!
      expect(after.treeSize).toBe(treeSize + 2)
      expect(signedBy(after.note, newKey)).toBe(true)
      expect(signedBy(after.note, oldKey)).toBe(false)

      // The database check passes on either instance: the old key reaches the new one through the
      // rotation.
      expect(await checkDatabase(restarted.deps)).toMatchObject({ ok: true, problem: null })
      expect(await checkDatabase(t.deps)).toMatchObject({ ok: true, problem: null })

      // The old verifier key stays published.
      const keys = await restarted.app.inject({
        method: 'GET',
        url: '/api/admin/audit-log/verifier-key',
        headers: bearer(admin.token),
      })
      expect(keys.json()).toEqual({
        origin: 'switchboard.test/audit-log',
        verifier_key: newKey,
        previous_verifier_keys: [{ verifier_key: oldKey, until_tree_size: treeSize }],
      })

      // The export carries the rotation; it verifies given the new key, the old key, and a
      // checkpoint saved before.
      const { file, lines } = await exportOf(restarted.app, admin.token)
      const header = JSON.parse(lines[0]!)
      expect(header.verifier_key).toBe(newKey)
      expect(header.key_rotations).toEqual([
        expect.objectContaining({
          tree_size: treeSize,
          old_verifier_key: oldKey,
          new_verifier_key: newKey,
        }),
      ])
      for (const args of [
        ['--key', newKey],
        ['--key', oldKey],
        ['--key', oldKey, '--checkpoint', savedFile],
      ]) {
        const verified = await cli(t.env, ['audit', 'verify', file, ...args])
        expect(verified, args.join(' ')).toEqual({
          code: 0,
          out: expect.stringMatching(/^audit log intact: all \d+ entries/),
        })
      }
      // A key outside the chain is refused.
      const stranger = createAuditSigner(t.env.PUBLIC_URL!, generateSigningKey()).verifierKey
      expect((await cli(t.env, ['audit', 'verify', file, '--key', stranger])).out).toMatch(
        /^audit log NOT intact: the log: bad signature/,
      )

      // A broken link: the rotation checkpoint without the old key's signature, or naming another
      // new key.
      const link = header.key_rotations[0]
      const note = parseSignedNote(link.checkpoint)!
      const tampered = [
        { ...link, checkpoint: `${note.text}\n${link.checkpoint.split('\n').at(-2)}\n` },
        { ...link, new_verifier_key: stranger },
      ]
      for (const bad of tampered) {
        const broken = path.join(makeTempDir(), 'broken.jsonl')
        fs.writeFileSync(
          broken,
          [JSON.stringify({ ...header, key_rotations: [bad] }), ...lines.slice(1)].join('\n') +
            '\n',
        )
        expect((await cli(t.env, ['audit', 'verify', broken, '--key', oldKey])).out).toMatch(
          /^audit log NOT intact: .*bad signature/,
        )
      }

      // In the database: the rotation checkpoint stripped of the new key's signature is a bad
      // signature.
      await t.deps.db
        .updateTable('audit_checkpoints')
        .set({ note: `${parseSignedNote(dual.note)!.text}\n${dual.note.split('\n').at(-3)}\n` })
        .where('tree_size', '=', treeSize)
        .execute()
      const check = await checkDatabase(restarted.deps)
      expect(check.problem).toMatchObject({ kind: 'bad signature' })
      expect(check.problem!.detail).toMatch(/both keys of the key rotation/)
      await t.deps.db
        .updateTable('audit_checkpoints')
        .set({ note: dual.note })
        .where('tree_size', '=', treeSize)
        .execute()
      expect(await checkDatabase(restarted.deps)).toMatchObject({ ok: true })
    } finally {
      await restarted.close()
    }
  })
})

describe('audit signing-key rotation, key in AUDIT_SIGNING_KEY', () => {
  const key = generateSigningKey()
  const t = useTestApp({ env: { AUDIT_SIGNING_KEY: key } })

  it('reads the new key from stdin, tells the operator to set it; refuses a malformed key and a key that is not the log’s', async () => {
    await insertAuditEvents(t.deps.db, [event(1)])
    await makeCheckpoint(t.deps)
    expect(
      await cli(t.env, ['audit', 'rotate-key', '--new-key-stdin'], 'not a key\n'),
    ).toMatchObject({ code: 2 })
    // An operator holding another key cannot hand the log over: the log's last checkpoint is not
    // theirs.
    const intruder = await cli({ ...t.env, AUDIT_SIGNING_KEY: generateSigningKey() }, [
      'audit',
      'rotate-key',
    ])
    expect(intruder.code).toBe(1)
    expect(intruder.out).toMatch(/not signed by this instance's key/)

    const next = generateSigningKey()
    const rotated = await cli(t.env, ['audit', 'rotate-key', '--new-key-stdin'], `${next}\n`)
    expect(rotated.code, rotated.out).toBe(0)
    expect(rotated.out).toContain(
      'set AUDIT_SIGNING_KEY to the new key on every instance and restart them',
    )
    expect(rotated.out).not.toContain(next)
    const treeSize = Number(/checkpoint of (\d+) events/.exec(rotated.out)![1])
    const nextVerifier = createAuditSigner(t.env.PUBLIC_URL!, next).verifierKey

    // The instance not yet restarted keeps its environment's key: it cannot sign the events written
    // since, but it still serves the log's latest checkpoint, the rotation's (it answered 500
    // before).
    await insertAuditEvents(t.deps.db, [event(2)])
    const admin = await createSignedInUser(t, { isAdmin: true })
    await expect(makeCheckpoint(t.deps)).rejects.toThrow(InconsistentTreeError)
    const served = await t.app.inject({
      method: 'GET',
      url: '/api/admin/audit-log/checkpoint',
      headers: bearer(admin.token),
    })
    expect(served.statusCode, served.body).toBe(200)
    expect(served.json().tree_size).toBe(treeSize)
    expect(signedBy(served.json().note, nextVerifier)).toBe(true)
    const exported = await t.app.inject({
      method: 'GET',
      url: '/api/admin/audit-log/export?format=verifiable',
      headers: bearer(admin.token),
    })
    expect(exported.statusCode).toBe(200)
    expect(JSON.parse(exported.body.split('\n')[0]!)).toMatchObject({ tree_size: treeSize })

    const restarted = await startInstance({ ...t.env, AUDIT_SIGNING_KEY: next }, t.clock)
    try {
      expect(await makeCheckpoint(restarted.deps)).not.toBeNull()
      expect(await checkDatabase(restarted.deps)).toMatchObject({ ok: true, problem: null })
      // Generated and printed when the key lives in the environment; a second rotation chains on.
      const again = await cli({ ...t.env, AUDIT_SIGNING_KEY: next }, ['audit', 'rotate-key'])
      expect(again.code, again.out).toBe(0)
      const third = /set AUDIT_SIGNING_KEY=(\S+) on every instance/.exec(again.out)![1]!
      const last = await startInstance({ ...t.env, AUDIT_SIGNING_KEY: third }, t.clock)
      try {
        expect(await checkDatabase(last.deps)).toMatchObject({ ok: true, problem: null })
        const keys = await last.app.inject({
          method: 'GET',
          url: '/api/admin/audit-log/verifier-key',
          headers: bearer(admin.token),
        })
        expect(
          keys.json().previous_verifier_keys.map((k: { verifier_key: string }) => k.verifier_key),
        ).toEqual([t.deps.auditSigner.verifierKey, restarted.deps.auditSigner.verifierKey])
      } finally {
        await last.close()
      }
    } finally {
      await restarted.close()
    }
  })
})
