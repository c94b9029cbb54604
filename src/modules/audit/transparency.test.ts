/**
 * The tamper-evident audit log end to end, on both engines — events as leaves, signed
 * checkpoints (checked by @sigstore/verify's signed-note reader as well as ours), proofs from the
 * stored tree verified by @sigstore/verify's RFC 6962 verifier, the verifiable export checked
 * offline by `switchboard audit verify`, redaction by retention, the integrity check, its mail to
 * administrators, and the daily anchoring (mail and webhook).
 */
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { makeTempDir } from '../../../test/helpers/database.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
} from '../../../test/helpers/factories.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'
import { runCli } from '../../cli.js'
import { leafHash, verifyConsistency, verifyInclusion } from '../../lib/merkle.js'
import {
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  verifyNote,
} from '../../lib/signed-note.js'
import { makeCheckpoint } from './checkpoints.js'
import { anchorCheckpoint } from './monitor.js'
import { checkDatabase } from './integrity.js'
import { auditLogOrigin } from './signer.js'
import { leafBytes, leafEventOf } from './leaf.js'
import { insertAuditEvents, type AuditEvent } from './repo.js'
import { purgeExpiredFailedSignIns } from './retention.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

interface SigstoreMerkle {
  verifyMerkleInclusion(
    entry: { inclusionProof: { logIndex: string; hashes: Buffer[] }; canonicalizedBody: Buffer },
    checkpoint: { logSize: bigint; logHash: Buffer },
  ): void
}
interface SigstoreCheckpoint {
  verifyCheckpoint(
    entry: { inclusionProof: { checkpoint: { envelope: string } } },
    tlogs: Array<{ logID: Buffer; baseURL: string; publicKey: unknown }>,
  ): { origin: string; logSize: bigint; logHash: Buffer }
}
const require = createRequire(import.meta.url)
const sigstoreMerkle = require('@sigstore/verify/dist/tlog/merkle.js') as SigstoreMerkle
const sigstoreCheckpoint = require('@sigstore/verify/dist/tlog/checkpoint.js') as SigstoreCheckpoint

let smtp: SmtpStandIn
beforeAll(async () => {
  smtp = await startSmtpStandIn()
})
afterAll(async () => {
  await smtp?.close()
})

const get = (token: string, url: string) =>
  t.app.inject({ method: 'GET', url, headers: bearer(token) })

function event(i: number, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
    actorId: `user-${i % 7}`,
    actorEmail: `user${i % 7}@example.com`,
    action: `test.bulk_${i % 3}`,
    targetType: 'thing',
    targetId: `thing-${i}`,
    ip: '192.0.2.1',
    userAgent: null,
    subjectUserId: null,
    metadata: { i, note: `event ${i}` },
    ...extra,
  }
}

async function runCommand(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  let out = ''
  const io = {
    env: { ...t.env, ...env },
    stdin: new PassThrough(),
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
  }
  const code = await runCli(args, io)
  return { code, out }
}

async function exportFile(token: string, query = ''): Promise<{ file: string; lines: string[] }> {
  const response = await get(token, `/api/admin/audit-log/export?format=verifiable${query}`)
  expect(response.statusCode).toBe(200)
  expect(response.headers['content-type']).toBe('application/jsonl; charset=utf-8')
  expect(response.headers['content-disposition']).toMatch(
    /filename="switchboard-audit-[0-9TZ-]+\.verifiable\.jsonl"/,
  )
  const file = path.join(makeTempDir(), 'export.jsonl')
  fs.writeFileSync(file, response.body)
  return { file, lines: response.body.trimEnd().split('\n') }
}

async function configureSmtp(token: string): Promise<void> {
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(token),
    payload: {
      current_password: DEFAULT_PASSWORD,
      enabled: true,
      host: smtp.host,
      port: smtp.port,
      plaintext_auth_on_loopback: true,
      from_address: 'no-reply@example.com',
    },
  })
  expect(response.statusCode).toBe(200)
}

describe('the audit Merkle tree', () => {
  it('makes every audited change a leaf, numbered from 0 without gaps, and signs checkpoints the verifier key checks (ours and @sigstore/verify)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await createUser(t)
    const rows = await t.deps.db
      .selectFrom('audit_events')
      .select(['leaf_index'])
      .orderBy('leaf_index')
      .execute()
    expect(rows.map((r) => Number(r.leaf_index))).toEqual(rows.map((_, i) => i))

    const checkpoint = (await get(admin.token, '/api/admin/audit-log/checkpoint')).json()
    const { verifier_key: key, origin } = (
      await get(admin.token, '/api/admin/audit-log/verifier-key')
    ).json()
    expect(origin).toBe('switchboard.test/audit-log')
    expect(key).toMatch(
      /^switchboard\.test\/audit-log\+[0-9a-f]{8}\+[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]$/,
    )
    expect(checkpoint).toMatchObject({ origin, tree_size: expect.any(Number) })
    expect(checkpoint.tree_size).toBeGreaterThanOrEqual(rows.length)
    expect(checkpoint.note).toMatch(
      new RegExp(
        `^${origin}\\n${checkpoint.tree_size}\\n${checkpoint.root_hash.replace(/[+/]/g, '\\$&')}\\n\\n\u2014 ${origin} [A-Za-z0-9+/=]+\\n$`,
      ),
    )
    const note = parseSignedNote(checkpoint.note)!
    const verifier = parseVerifierKey(key)!
    expect(verifyNote(note, verifier)).toBe(true)
    // The independent reader: Sigstore's checkpoint verification (key hint, name, Ed25519
    // signature).
    const theirs = sigstoreCheckpoint.verifyCheckpoint(
      { inclusionProof: { checkpoint: { envelope: checkpoint.note } } },
      [{ logID: verifier.keyHash, baseURL: origin, publicKey: verifier.publicKey }],
    )
    expect(Number(theirs.logSize)).toBe(checkpoint.tree_size)
    expect(theirs.logHash.toString('base64')).toBe(checkpoint.root_hash)
    // One changed character and it no longer verifies.
    const forged = checkpoint.note.replace(
      `\n${checkpoint.tree_size}\n`,
      `\n${checkpoint.tree_size + 1}\n`,
    )
    expect(verifyNote(parseSignedNote(forged)!, verifier)).toBe(false)
  })

  it('serves inclusion and consistency proofs from the stored tree that @sigstore/verify and RFC 9162 verification accept (a tree of 1,500 leaves)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await insertAuditEvents(
      t.deps.db,
      Array.from({ length: 1500 }, (_, i) => event(i)),
    )
    const first = (await get(admin.token, '/api/admin/audit-log/checkpoint')).json()
    await insertAuditEvents(
      t.deps.db,
      Array.from({ length: 37 }, (_, i) => event(2000 + i)),
    )
    const second = (await get(admin.token, '/api/admin/audit-log/checkpoint')).json()
    expect(second.tree_size).toBe(first.tree_size + 37)

    const leaves = (
      await t.deps.db.selectFrom('audit_events').selectAll().orderBy('leaf_index').execute()
    ).map((r) => leafBytes(leafEventOf(r)))
    for (let n = 0; n < 40; n++) {
      const size = n === 0 ? second.tree_size : 1 + Math.floor(Math.random() * second.tree_size)
      const index = n === 1 ? size - 1 : Math.floor(Math.random() * size)
      const proof = await get(
        admin.token,
        `/api/admin/audit-log/proofs/inclusion?leaf_index=${index}&tree_size=${size}`,
      )
      expect(proof.statusCode).toBe(200)
      const body = proof.json()
      const hashes = (body.proof as string[]).map((h) => Buffer.from(h, 'base64'))
      const root = Buffer.from(body.root_hash, 'base64')
      expect(Buffer.from(body.leaf_hash, 'base64').equals(leafHash(leaves[index]!))).toBe(true)
      sigstoreMerkle.verifyMerkleInclusion(
        { inclusionProof: { logIndex: String(index), hashes }, canonicalizedBody: leaves[index]! },
        { logSize: BigInt(size), logHash: root },
      )
      expect(verifyInclusion(index, size, leafHash(leaves[index]!), hashes, root)).toBe(true)
      if (size === second.tree_size) expect(body.root_hash).toBe(second.root_hash)
    }
    const consistency = (
      await get(
        admin.token,
        `/api/admin/audit-log/proofs/consistency?first=${first.tree_size}&second=${second.tree_size}`,
      )
    ).json()
    expect(consistency.first_root_hash).toBe(first.root_hash)
    expect(consistency.second_root_hash).toBe(second.root_hash)
    const proof = (consistency.proof as string[]).map((h) => Buffer.from(h, 'base64'))
    const [oldRoot, newRoot] = [
      Buffer.from(first.root_hash, 'base64'),
      Buffer.from(second.root_hash, 'base64'),
    ]
    expect(verifyConsistency(first.tree_size, second.tree_size, oldRoot, newRoot, proof)).toBe(true)
    expect(proof.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(second.tree_size)))
  })

  it('refuses proofs outside the tree (400 on the field) and non-administrators (403)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const size = (await get(admin.token, '/api/admin/audit-log/checkpoint')).json()
      .tree_size as number
    for (const [url, field] of [
      [`/api/admin/audit-log/proofs/inclusion?leaf_index=${size}&tree_size=${size}`, 'leaf_index'],
      [`/api/admin/audit-log/proofs/inclusion?leaf_index=0&tree_size=${size + 1000}`, 'tree_size'],
      ['/api/admin/audit-log/proofs/consistency?first=5&second=4', 'first'],
      [`/api/admin/audit-log/proofs/consistency?first=1&second=${size + 1000}`, 'second'],
      ['/api/admin/audit-log/proofs/inclusion?leaf_index=-1&tree_size=3', 'leaf_index'],
    ] as const) {
      const response = await get(admin.token, url)
      expect(response.statusCode, url).toBe(400)
      expect(response.json().reason).toBe('VALIDATION_FAILED')
      expect(response.json().details.map((d: { field: string }) => d.field)).toContain(field)
    }
    for (const url of [
      '/api/admin/audit-log/checkpoint',
      '/api/admin/audit-log/verifier-key',
      '/api/admin/audit-log/integrity',
    ]) {
      expect((await get(user.token, url)).statusCode).toBe(403)
    }
  })
})

describe('the verifiable export and `switchboard audit verify`', () => {
  it('a full export verifies offline with the verifier key, and against an earlier saved checkpoint', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const saved = (await get(admin.token, '/api/admin/audit-log/checkpoint')).json()
    const savedFile = path.join(makeTempDir(), 'saved.checkpoint')
    fs.writeFileSync(savedFile, saved.note)
    await insertAuditEvents(t.deps.db, [event(1), event(2)])
    const key = (await get(admin.token, '/api/admin/audit-log/verifier-key')).json()
      .verifier_key as string

    const { file, lines } = await exportFile(admin.token)
    const header = JSON.parse(lines[0]!)
    expect(header).toMatchObject({
      type: 'switchboard-audit-export',
      version: 1,
      verifier_key: key,
      subset: false,
    })
    expect(lines).toHaveLength(header.tree_size + 1)
    // The export is audited, and the checkpoint made for it covers that event.
    const last = JSON.parse(lines.at(-1)!)
    expect(last).toMatchObject({
      leaf_index: header.tree_size - 1,
      event: { action: 'audit.export', metadata: { format: 'verifiable' } },
    })

    expect(await runCommand(['audit', 'verify', file, '--key', key])).toEqual({
      code: 0,
      out: expect.stringMatching(/^audit log intact: all \d+ entries/),
    })
    expect(
      (await runCommand(['audit', 'verify', file, '--key', key, '--checkpoint', savedFile])).code,
    ).toBe(0)
    expect(
      (
        await runCommand([
          'audit',
          'verify',
          file,
          '--key',
          key,
          '--checkpoint',
          savedFile,
          '--threads',
          '2',
        ])
      ).code,
    ).toBe(0)
    // Without --key, the key inside the export is used, and the output says so.
    expect((await runCommand(['audit', 'verify', file])).out).toMatch(
      /note: checked with the key inside the export/,
    )

    // A checkpoint of another log (another key) is a bad signature; one the export does not extend
    // is not consistent.
    const other = await runCommand([
      'audit',
      'verify',
      file,
      '--key',
      key.replace(/\+[0-9a-f]{8}\+/, '+00000000+'),
    ])
    expect(other.code).not.toBe(0)
    const rewritten = saved.note.replace(`\n${saved.tree_size}\n`, `\n${saved.tree_size - 1}\n`)
    fs.writeFileSync(savedFile, rewritten)
    const forged = await runCommand([
      'audit',
      'verify',
      file,
      '--key',
      key,
      '--checkpoint',
      savedFile,
    ])
    expect(forged).toEqual({
      code: 1,
      out: expect.stringMatching(/^audit log NOT intact: the log: bad signature/),
    })
  })

  it('a saved checkpoint the log does not extend is reported as not consistent', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const key = (await get(admin.token, '/api/admin/audit-log/verifier-key')).json()
      .verifier_key as string
    const { file, lines } = await exportFile(admin.token)
    const header = JSON.parse(lines[0]!)
    // A checkpoint signed by the log's own key over a different history (the signer stands in for a
    // fork).
    const { signCheckpoint } = await import('./checkpoints.js')
    const fork = signCheckpoint(t.deps.auditSigner, 3, leafHash(Buffer.from('another history')))
    const forkFile = path.join(makeTempDir(), 'fork.checkpoint')
    fs.writeFileSync(forkFile, fork)
    expect(header.tree_size).toBeGreaterThan(3)
    const result = await runCommand([
      'audit',
      'verify',
      file,
      '--key',
      key,
      '--checkpoint',
      forkFile,
    ])
    expect(result).toEqual({
      code: 1,
      out: expect.stringMatching(/^audit log NOT intact: the log: not consistent — /),
    })
  })

  it('a filtered export carries an inclusion proof per event and verifies; an edited event in it does not', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await insertAuditEvents(t.deps.db, [
      event(10, { action: 'test.subset' }),
      event(11),
      event(12, { action: 'test.subset' }),
    ])
    const key = (await get(admin.token, '/api/admin/audit-log/verifier-key')).json()
      .verifier_key as string
    const { file, lines } = await exportFile(admin.token, '&action=test.subset')
    expect(JSON.parse(lines[0]!)).toMatchObject({
      subset: true,
      filters: { action: 'test.subset' },
    })
    const entries = lines.slice(1).map((l) => JSON.parse(l))
    expect(entries.map((e) => e.event.metadata.i)).toEqual([10, 12])
    expect(
      entries.every((e) => Array.isArray(e.inclusion_proof) && e.inclusion_proof.length > 0),
    ).toBe(true)
    expect((await runCommand(['audit', 'verify', file, '--key', key])).out).toMatch(
      /^audit log intact: 2 filtered entries, each proven/,
    )

    fs.writeFileSync(
      file,
      [lines[0], lines[1]!.replace('"event 10"', '"event 13"'), lines[2]].join('\n') + '\n',
    )
    const edited = await runCommand(['audit', 'verify', file, '--key', key])
    expect(edited).toEqual({
      code: 1,
      out: `audit log NOT intact: entry ${entries[0].leaf_index}: edited — the event does not match its leaf hash\n`,
    })
  })

  it('`audit verify --database` checks the live database; usage errors exit 2', async () => {
    expect(await runCommand(['audit', 'verify', '--database'])).toEqual({
      code: 0,
      out: expect.stringMatching(/^audit log intact: \d+ leaves, \d+ signed roots matched\n$/),
    })
    // Run with another PUBLIC_URL than the service's (e.g. only DATA_DIR set): the log is checked
    // under the origin its checkpoints carry, and the disagreement is said as such.
    const elsewhere = await runCommand(['audit', 'verify', '--database'], {
      PUBLIC_URL: 'https://elsewhere.example/sub',
    })
    expect(elsewhere.code).toBe(0)
    const [intact, disagree, ...rest] = elsewhere.out.split('\n')
    expect(intact).toMatch(/^audit log intact: \d+ leaves, \d+ signed roots matched$/)
    expect(disagree).toBe(
      `configuration and log disagree: the log's checkpoints name the origin ${auditLogOrigin(t.env.PUBLIC_URL!)}, ` +
        "this configuration's PUBLIC_URL gives elsewhere.example/sub/audit-log; checked under the log's origin",
    )
    expect(rest).toEqual([''])
    expect(elsewhere.out).not.toContain('bad signature')
    expect((await runCommand(['audit', 'verify'])).code).toBe(2)
    expect((await runCommand(['audit', 'check', 'x'])).code).toBe(2)
    for (const threads of ['-1', '1.5', 'two', '65'])
      expect((await runCommand(['audit', 'verify', 'x.jsonl', `--threads=${threads}`])).code).toBe(
        2,
      )
  })
})

describe('redaction', () => {
  it('retention removes failed sign-ins but keeps their leaves: proofs, checkpoints and the export still verify, marked redacted', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const { user, email } = await createUser(t)
    t.clock.advance(-100 * 86_400)
    const failed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'not the password' },
    })
    expect(failed.statusCode).toBe(401)
    t.clock.advance(100 * 86_400)
    const row = await t.deps.db
      .selectFrom('audit_events')
      .select(['leaf_index'])
      .where('action', '=', 'auth.login_failed')
      .where('target_id', '=', user.id)
      .executeTakeFirstOrThrow()
    const index = Number(row.leaf_index)
    const before = (await get(admin.token, '/api/admin/audit-log/checkpoint')).json()
    const proofBefore = (
      await get(
        admin.token,
        `/api/admin/audit-log/proofs/inclusion?leaf_index=${index}&tree_size=${before.tree_size}`,
      )
    ).json()

    expect(await purgeExpiredFailedSignIns(t.deps)).toBeGreaterThanOrEqual(1)
    const record = await t.deps.db
      .selectFrom('audit_events')
      .select(['metadata'])
      .where('action', '=', 'audit.redact')
      .orderBy('leaf_index', 'desc')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(record.metadata)).toMatchObject({
      reason: 'retention',
      leaves: expect.arrayContaining([index]),
    })

    // The old proof still verifies against the old checkpoint, and a new one against the new
    // checkpoint.
    expect(
      verifyInclusion(
        index,
        before.tree_size,
        Buffer.from(proofBefore.leaf_hash, 'base64'),
        proofBefore.proof.map((h: string) => Buffer.from(h, 'base64')),
        Buffer.from(before.root_hash, 'base64'),
      ),
    ).toBe(true)
    const after = (await get(admin.token, '/api/admin/audit-log/checkpoint')).json()
    const proofAfter = (
      await get(
        admin.token,
        `/api/admin/audit-log/proofs/inclusion?leaf_index=${index}&tree_size=${after.tree_size}`,
      )
    ).json()
    expect(proofAfter.leaf_hash).toBe(proofBefore.leaf_hash)
    expect(
      verifyInclusion(
        index,
        after.tree_size,
        Buffer.from(proofAfter.leaf_hash, 'base64'),
        proofAfter.proof.map((h: string) => Buffer.from(h, 'base64')),
        Buffer.from(after.root_hash, 'base64'),
      ),
    ).toBe(true)
    const consistency = (
      await get(
        admin.token,
        `/api/admin/audit-log/proofs/consistency?first=${before.tree_size}&second=${after.tree_size}`,
      )
    ).json()
    expect(
      verifyConsistency(
        before.tree_size,
        after.tree_size,
        Buffer.from(before.root_hash, 'base64'),
        Buffer.from(after.root_hash, 'base64'),
        consistency.proof.map((h: string) => Buffer.from(h, 'base64')),
      ),
    ).toBe(true)

    const { file, lines } = await exportFile(admin.token)
    expect(JSON.parse(lines[index + 1]!)).toEqual({
      leaf_index: index,
      leaf_hash: proofBefore.leaf_hash,
      redacted: true,
    })
    expect(lines.filter((l) => l.includes(user.id) && l.includes('auth.login_failed'))).toEqual([])
    expect(
      (await runCommand(['audit', 'verify', file, '--key', t.deps.auditSigner.verifierKey])).code,
    ).toBe(0)
    expect(await checkDatabase(t.deps)).toMatchObject({ ok: true })
  })

  it('an event deleted without a redaction record is reported missing, by the database check and in an export', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await insertAuditEvents(t.deps.db, [event(500, { action: 'test.victim' })])
    const victim = await t.deps.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'test.victim')
      .executeTakeFirstOrThrow()
    const { file } = await exportFile(admin.token)
    await t.deps.db.deleteFrom('audit_events').where('id', '=', victim.id).execute()
    try {
      expect(await checkDatabase(t.deps)).toMatchObject({
        ok: false,
        problem: { index: Number(victim.leaf_index), kind: 'missing' },
      })
      const text = fs.readFileSync(file, 'utf8').split('\n')
      const i = Number(victim.leaf_index) + 1
      const line = JSON.parse(text[i]!)
      text[i] = JSON.stringify({
        leaf_index: line.leaf_index,
        leaf_hash: line.leaf_hash,
        redacted: true,
      })
      fs.writeFileSync(file, text.join('\n'))
      const result = await runCommand([
        'audit',
        'verify',
        file,
        '--key',
        t.deps.auditSigner.verifierKey,
      ])
      expect(result).toEqual({
        code: 1,
        out: `audit log NOT intact: entry ${victim.leaf_index}: missing — its content is gone and no redaction record names it\n`,
      })
    } finally {
      await t.deps.db.insertInto('audit_events').values(victim).execute()
    }
    expect(await checkDatabase(t.deps)).toMatchObject({ ok: true })
  })
})

describe('tree nodes stored after the transaction (the append writes the event and the head only)', () => {
  const leafNode = (index: number) =>
    t.deps.db
      .selectFrom('audit_tree_nodes')
      .select('hash')
      .where('level', '=', 0)
      .where('idx', '=', index)
      .executeTakeFirst()

  it('an event changed or removed before its leaf hash is stored is refused by the next checkpoint and found by the database check', async () => {
    await makeCheckpoint(t.deps)
    await insertAuditEvents(t.deps.db, [event(700, { action: 'test.pending' }), event(701)])
    const pending = await t.deps.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'test.pending')
      .executeTakeFirstOrThrow()
    const index = Number(pending.leaf_index)
    expect(await leafNode(index)).toBeUndefined()

    await t.deps.db
      .updateTable('audit_events')
      .set({ target_id: 'thing-x' })
      .where('id', '=', pending.id)
      .execute()
    await expect(makeCheckpoint(t.deps)).rejects.toThrow(/do not give the tree head/)
    expect(await leafNode(index), 'nothing stored from a changed event').toBeUndefined()
    expect(await checkDatabase(t.deps)).toMatchObject({
      ok: false,
      problem: { index, kind: 'edited' },
    })

    await t.deps.db.deleteFrom('audit_events').where('id', '=', pending.id).execute()
    await expect(makeCheckpoint(t.deps)).rejects.toThrow(new RegExp(`leaf ${index} is gone`))
    expect(await checkDatabase(t.deps)).toMatchObject({
      ok: false,
      problem: { index, kind: 'missing' },
    })

    // Put back as written, the leaves are stored and signed, and a proof reaches them.
    await t.deps.db.insertInto('audit_events').values(pending).execute()
    const checkpoint = (await makeCheckpoint(t.deps))!
    expect(checkpoint.treeSize).toBe(index + 2)
    expect((await leafNode(index))!.hash).toBe(
      leafHash(leafBytes(leafEventOf(pending))).toString('hex'),
    )
    expect(await checkDatabase(t.deps)).toMatchObject({ ok: true, problem: null })
  })

  it('a proof asked for before the checkpointer ran stores the pending nodes first', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await makeCheckpoint(t.deps)
    await insertAuditEvents(t.deps.db, [event(710), event(711), event(712)])
    const size = Number(
      (await t.deps.db.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow()).size,
    )
    expect(await leafNode(size - 1)).toBeUndefined()
    const proof = await get(
      admin.token,
      `/api/admin/audit-log/proofs/inclusion?leaf_index=${size - 1}&tree_size=${size}`,
    )
    expect(proof.statusCode, proof.body).toBe(200)
    const body = proof.json()
    const root = Buffer.from(body.root_hash, 'base64')
    expect(
      verifyInclusion(
        size - 1,
        size,
        Buffer.from(body.leaf_hash, 'base64'),
        body.proof.map((h: string) => Buffer.from(h, 'base64')),
        root,
      ),
    ).toBe(true)
    expect((await get(admin.token, '/api/admin/audit-log/checkpoint')).json()).toMatchObject({
      tree_size: size,
      root_hash: body.root_hash,
    })
  })
})

describe('integrity status, mail and anchoring', () => {
  it('a row edited in the database turns the status to failed at the next check, and the administrators get one mail', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await configureSmtp(admin.token)
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/admin/audit-log/integrity',
      headers: bearer(admin.token),
    })
    expect(ok.json()).toMatchObject({
      status: 'ok',
      problem: null,
      verifier_key: t.deps.auditSigner.verifierKey,
    })
    const target = await t.deps.db
      .selectFrom('audit_events')
      .select(['id', 'leaf_index', 'actor_email'])
      .where('actor_email', 'is not', null)
      .orderBy('leaf_index')
      .executeTakeFirstOrThrow()
    await t.deps.db
      .updateTable('audit_events')
      .set({ actor_email: 'someone-else@example.com' })
      .where('id', '=', target.id)
      .execute()
    const mailsBefore = smtp.received.length
    try {
      const failed = (
        await t.app.inject({
          method: 'POST',
          url: '/api/admin/audit-log/integrity',
          headers: bearer(admin.token),
        })
      ).json()
      expect(failed).toMatchObject({
        status: 'failed',
        problem: `entry ${target.leaf_index}: edited — event ${target.id} does not match its leaf hash`,
      })
      expect((await get(admin.token, '/api/admin/audit-log/integrity')).json().status).toBe(
        'failed',
      )
      // Only the integrity mails: the SMTP set-up's notices to other administrators may arrive too.
      const edited = `entry ${target.leaf_index}: edited`
      const integrityMails = () =>
        smtp.received.slice(mailsBefore).filter((m) => textOf(m).includes(edited))
      const mails = integrityMails()
      expect(mails.length).toBeGreaterThanOrEqual(1)
      expect(mails.some((m) => m.to.includes(admin.email))).toBe(true)
      // The same failure again is not mailed again.
      const count = mails.length
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/audit-log/integrity',
        headers: bearer(admin.token),
      })
      expect(integrityMails().length).toBe(count)
      expect(t.logs.some((line) => line.includes('audit log integrity check FAILED'))).toBe(true)
    } finally {
      await t.deps.db
        .updateTable('audit_events')
        .set({ actor_email: target.actor_email })
        .where('id', '=', target.id)
        .execute()
    }
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/admin/audit-log/integrity',
          headers: bearer(admin.token),
        })
      ).json().status,
    ).toBe('ok')
  })

  it('the daily anchoring mails the checkpoint to administrators and POSTs it to the webhook an administrator set (audited)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await configureSmtp(admin.token)
    const received: string[] = []
    const server = http.createServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString()))
      request.on('end', () => {
        received.push(body)
        response.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/anchor/secret-path`
      for (const bad of [
        'ftp://example.com/x',
        'http://169.254.169.254/latest',
        'http://user:pw@example.com/',
      ]) {
        const refused = await t.app.inject({
          method: 'PUT',
          url: '/api/admin/audit-log/anchor',
          headers: bearer(admin.token),
          payload: { webhook_url: bad },
        })
        expect(refused.statusCode, bad).toBe(400)
        expect(refused.json().details[0].field).toBe('webhook_url')
      }
      const set = await t.app.inject({
        method: 'PUT',
        url: '/api/admin/audit-log/anchor',
        headers: bearer(admin.token),
        payload: { webhook_url: url },
      })
      expect(set.json()).toMatchObject({ anchor_webhook_url: url })
      const audited = await t.deps.db
        .selectFrom('audit_events')
        .select('metadata')
        .where('action', '=', 'audit.anchor_update')
        .executeTakeFirstOrThrow()
      expect(JSON.parse(audited.metadata)).toEqual({
        webhook_host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
      })

      // The anchoring at start mailed nobody (no SMTP then): that claim was given back, so the
      // day's mail goes now, with the first POST to the webhook; then not again within the day.
      const startMails = smtp.received.length
      expect(await anchorCheckpoint(t.deps)).toBe(true)
      expect(smtp.received.slice(startMails).some((m) => m.to.includes(admin.email))).toBe(true)
      expect(received).toHaveLength(1)
      expect(await anchorCheckpoint(t.deps)).toBe(false)
      // Again once the day has passed.
      t.clock.advance(86_400)
      received.length = 0
      const mailsBefore = smtp.received.length
      expect(await anchorCheckpoint(t.deps)).toBe(true)
      expect(await anchorCheckpoint(t.deps)).toBe(false)
      expect(received).toHaveLength(1)
      const posted = JSON.parse(received[0]!)
      const checkpoint = parseCheckpoint(parseSignedNote(posted.checkpoint)!.text)!
      expect(posted).toMatchObject({
        origin: 'switchboard.test/audit-log',
        tree_size: checkpoint.size,
        verifier_key: t.deps.auditSigner.verifierKey,
      })
      expect(
        verifyNote(
          parseSignedNote(posted.checkpoint)!,
          parseVerifierKey(t.deps.auditSigner.verifierKey)!,
        ),
      ).toBe(true)
      const mail = smtp.received.slice(mailsBefore).find((m) => m.to.includes(admin.email))
      expect(mail).toBeDefined()
      expect(textOf(mail!)).toContain(posted.checkpoint.split('\n')[2])
    } finally {
      server.close()
    }
  })
  it('a day whose anchoring could not be delivered is tried again: the mail once SMTP works, the webhook once it answers, neither twice', async () => {
    // A fresh day: the earlier tests' anchoring is more than a day behind.
    t.clock.advance(3 * 86_400)
    const admin = await createSignedInUser(t, { isAdmin: true })
    const off = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/smtp',
      headers: bearer(admin.token),
      payload: { current_password: DEFAULT_PASSWORD, enabled: false },
    })
    expect(off.statusCode).toBe(200)
    let status = 500
    const received: string[] = []
    const server = http.createServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString()))
      request.on('end', () => {
        received.push(body)
        response.writeHead(status).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/anchor`
      await t.app.inject({
        method: 'PUT',
        url: '/api/admin/audit-log/anchor',
        headers: bearer(admin.token),
        payload: { webhook_url: url },
      })
      const anchoredBefore = (await get(admin.token, '/api/admin/audit-log/integrity')).json()
        .anchored_at

      // No SMTP and a failing webhook: nothing delivered, nothing claimed.
      expect(await anchorCheckpoint(t.deps)).toBe(false)
      expect(received).toHaveLength(1)
      expect((await get(admin.token, '/api/admin/audit-log/integrity')).json().anchored_at).toBe(
        anchoredBefore,
      )

      // The next hour: SMTP works, the webhook still fails — the mail goes, the POST is tried
      // again.
      await configureSmtp(admin.token)
      t.clock.advance(3600)
      const mailsBefore = smtp.received.length
      expect(await anchorCheckpoint(t.deps)).toBe(true)
      const mails = () =>
        smtp.received
          .slice(mailsBefore)
          .filter(
            (m) =>
              m.to.includes(admin.email) &&
              /The signed checkpoint of the audit log/.test(textOf(m)),
          )
      expect(mails()).toHaveLength(1)
      expect(received).toHaveLength(2)
      const anchoredAt = (await get(admin.token, '/api/admin/audit-log/integrity')).json()
        .anchored_at
      expect(anchoredAt).not.toBe(anchoredBefore)
      expect(Date.parse(anchoredAt)).toBeGreaterThan(Date.parse(anchoredBefore))

      // The hour after: the webhook answers; the administrators are not mailed again.
      status = 204
      t.clock.advance(3600)
      expect(await anchorCheckpoint(t.deps)).toBe(true)
      expect(received).toHaveLength(3)
      expect(mails()).toHaveLength(1)
      expect(await anchorCheckpoint(t.deps)).toBe(false)
      expect(received).toHaveLength(3)
    } finally {
      server.close()
    }
  })
})
