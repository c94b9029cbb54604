/** `audit verify …` and `audit rotate-key`: the tamper-evident audit log from the command line. */
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { generateSigningKey, isSigningKey } from '../lib/signed-note.js'
import { stageAuditSigningKey } from '../lib/secrets.js'
import { verifyExportFile } from '../modules/audit/export-verifier.js'
import { checkDatabase } from '../modules/audit/integrity.js'
import { rotateSigningKey, type RotationResult } from '../modules/audit/key-rotation.js'
import { describeProblem } from '../modules/audit/verify.js'
import { readLine, usageError, withDeps, type CliIo, type Command } from './io.js'

export const audit: Command = async ([sub, ...args], io) =>
  sub === 'rotate-key' ? rotateAuditKey(args, io) : verify(sub, args, io)

interface VerifyRequest {
  database: boolean
  exportFile?: string
  key?: string
  checkpoint?: string
  threads?: number
}

/** The request of `audit verify`, or null when it is malformed. */
function parseVerify(sub: string | undefined, args: string[]): VerifyRequest | null {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      checkpoint: { type: 'string' },
      database: { type: 'boolean' },
      threads: { type: 'string' },
    },
  })
  const threads = values.threads === undefined ? undefined : Number(values.threads)
  const badThreads =
    threads !== undefined &&
    !(
      Number.isSafeInteger(threads) &&
      threads >= 0 &&
      threads <= 64 &&
      /^[0-9]+$/.test(values.threads!)
    )
  const database = values.database === true
  if (sub !== 'verify' || database === (positionals.length === 1) || positionals.length > 1)
    return null
  if (badThreads) return null
  return {
    database,
    ...(positionals[0] !== undefined && { exportFile: positionals[0] }),
    ...(values.key !== undefined && { key: values.key }),
    ...(values.checkpoint !== undefined && { checkpoint: values.checkpoint }),
    ...(threads !== undefined && { threads }),
  }
}

/** `audit verify …`: 0 intact, 1 not intact (one line: the first bad entry and why), 2 usage. */
async function verify(sub: string | undefined, args: string[], io: CliIo): Promise<number> {
  const request = parseVerify(sub, args)
  if (request === null)
    return usageError(io, 'audit verify needs an export file or --database (or: audit rotate-key)')
  return request.database ? verifyDatabase(io) : verifyExport(request, io)
}

async function verifyDatabase(io: CliIo): Promise<number> {
  const result = await withDeps(io, checkDatabase)
  if (result.problem !== null) {
    io.stdout.write(`audit log NOT intact: ${describeProblem(result.problem)}\n`)
  } else {
    io.stdout.write(
      `audit log intact: ${result.size} leaves, ${result.checkpoints} signed roots matched\n`,
    )
  }
  if (result.originMismatch !== undefined) {
    const { log, configured } = result.originMismatch
    io.stdout.write(
      `configuration and log disagree: the log's checkpoints name the origin ${log}, ` +
        `this configuration's PUBLIC_URL gives ${configured}; checked under the log's origin\n`,
    )
  }
  return result.problem === null ? 0 : 1
}

async function verifyExport(request: VerifyRequest, io: CliIo): Promise<number> {
  // A key is given as its text, or as a file holding it.
  const key =
    request.key !== undefined && fs.existsSync(request.key)
      ? fs.readFileSync(request.key, 'utf8').trim()
      : request.key
  const saved =
    request.checkpoint === undefined ? undefined : fs.readFileSync(request.checkpoint, 'utf8')
  const result = await verifyExportFile(request.exportFile!, {
    ...(key !== undefined && { verifierKey: key }),
    ...(saved !== undefined && { savedCheckpoint: saved }),
    ...(request.threads !== undefined && { threads: request.threads }),
  })
  if (result.problem !== null) {
    io.stdout.write(`audit log NOT intact: ${describeProblem(result.problem)}\n`)
    return 1
  }
  const scope = result.subset
    ? `${result.entries} filtered entries, each proven in`
    : `all ${result.entries} entries of`
  io.stdout.write(`audit log intact: ${scope} the signed tree of ${result.treeSize} leaves\n`)
  if (result.keyFromExport)
    io.stdout.write(
      'note: checked with the key inside the export; pass --key with the key you trust\n',
    )
  return 0
}

/** The new signing key: generated, or read from stdin (null when what was read is not one). */
async function newSigningKey(fromStdin: boolean, io: CliIo): Promise<string | null> {
  if (!fromStdin) return generateSigningKey()
  const key = (await readLine(io, 'New audit signing key: ')).trim()
  return isSigningKey(key) ? key : null
}

/**
 * `audit rotate-key`: the rotation is recorded and signed by both keys first; the new key replaces
 * the one in secrets.json only after that committed, or is printed (when generated) for the
 * operator to put into AUDIT_SIGNING_KEY.
 */
async function rotateAuditKey(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { 'new-key-stdin': { type: 'boolean' } } })
  const fromStdin = values['new-key-stdin'] === true
  const newKey = await newSigningKey(fromStdin, io)
  if (newKey === null) {
    io.stderr.write(
      'switchboard: the new key must be an Ed25519 private key, base64 PKCS #8 DER ' +
        '(as AUDIT_SIGNING_KEY)\n',
    )
    return 2
  }
  return withDeps(io, async (deps) => {
    const keyInFile = deps.config.auditSigningKey === undefined && deps.secrets.file !== null
    const staged = keyInFile ? stageAuditSigningKey(deps.secrets.file!, newKey) : null
    let rotation: RotationResult
    try {
      rotation = await rotateSigningKey(deps, newKey, 'cli')
    } catch (error) {
      staged?.abort()
      throw error
    }
    staged?.commit()
    io.stdout.write(
      `audit signing key rotated: the checkpoint of ${rotation.treeSize} events is signed by ` +
        `both keys\nold verifier key (stays published): ${rotation.oldVerifierKey}\n` +
        `new verifier key: ${rotation.newVerifierKey}\n`,
    )
    if (keyInFile)
      io.stdout.write(`the new key is in ${deps.secrets.file}; restart every instance\n`)
    else if (!fromStdin)
      io.stdout.write(`set AUDIT_SIGNING_KEY=${newKey} on every instance and restart them\n`)
    else
      io.stdout.write('set AUDIT_SIGNING_KEY to the new key on every instance and restart them\n')
    return 0
  })
}
