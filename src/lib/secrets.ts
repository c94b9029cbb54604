/**
 * The two server secrets: the JWT signing secret and the encryption key for secrets at rest.
 * Configuration wins; otherwise they are generated on first start and kept in DATA_DIR/secrets.json
 * (mode 0600), so `npm start` works on a fresh machine with no manual step and sessions survive
 * restarts. Instances that share a database must share these (docs/API.md#operations).
 */
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { generateSigningKey, isSigningKey } from './signed-note.js'

export interface Secrets {
  jwtSecret: string
  encryptionKey: Buffer
  /** The audit log's Ed25519 checkpoint key, base64 PKCS #8 DER. Never leaves the process. */
  auditSigningKey: string
  /**
   * Where a generated secret came from, for the start-up log; null when both came from
   * configuration.
   */
  file: string | null
}

interface SecretsFile {
  jwt_secret: string
  encryption_key: string
  /** Absent from older files until the first start that needs it adds it. */
  audit_signing_key?: string
}

function isSecretsFile(value: unknown): value is SecretsFile {
  const v = value as Partial<SecretsFile> | null
  return (
    typeof v?.jwt_secret === 'string' &&
    v.jwt_secret.length >= 32 &&
    typeof v.encryption_key === 'string' &&
    /^[0-9a-f]{64}$/i.test(v.encryption_key)
  )
}

function readOrCreate(file: string): SecretsFile {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const generated: SecretsFile = {
    jwt_secret: randomBytes(48).toString('base64url'),
    encryption_key: randomBytes(32).toString('hex'),
    audit_signing_key: generateSigningKey(),
  }
  // Written aside, then hard-linked into place: link() fails when the file exists, so two instances
  // starting on one DATA_DIR agree on one set, and neither ever reads a half-written file.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  fs.writeFileSync(draft, `${JSON.stringify(generated, null, 2)}\n`, { flag: 'wx', mode: 0o600 })
  try {
    fs.linkSync(draft, file)
    return generated
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    fs.rmSync(draft, { force: true })
  }
  const stored: unknown = JSON.parse(fs.readFileSync(file, 'utf8'))
  if (!isSecretsFile(stored))
    throw new Error(
      `${file} is not a valid secrets file; restore it from a backup or remove it to start afresh`,
    )
  return stored
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Adds an audit signing key to a secrets file written without one. Instances starting together
 * take turns through a lock file (created exclusively), so they all end with the one key written.
 */
function withAuditKey(file: string, stored: SecretsFile): SecretsFile {
  if (stored.audit_signing_key !== undefined) return stored
  const lock = `${file}.lock`
  for (let attempt = 0; attempt < 100; attempt++) {
    let fd: number
    try {
      fd = fs.openSync(lock, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      sleep(50)
      continue
    }
    try {
      const current = JSON.parse(fs.readFileSync(file, 'utf8')) as SecretsFile
      if (current.audit_signing_key !== undefined) return current
      const next: SecretsFile = { ...current, audit_signing_key: generateSigningKey() }
      const draft = `${file}.${process.pid}.tmp`
      fs.writeFileSync(draft, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 })
      fs.renameSync(draft, file)
      return next
    } finally {
      fs.closeSync(fd)
      fs.rmSync(lock, { force: true })
    }
  }
  throw new Error(`${lock} is held by another process; remove it if no instance is starting`)
}

export function resolveSecrets(config: {
  dataDir: string
  jwtSecret?: string
  encryptionKey?: Buffer
  auditSigningKey?: string
}): Secrets {
  if (
    config.jwtSecret !== undefined &&
    config.encryptionKey !== undefined &&
    config.auditSigningKey !== undefined
  ) {
    return {
      jwtSecret: config.jwtSecret,
      encryptionKey: config.encryptionKey,
      auditSigningKey: config.auditSigningKey,
      file: null,
    }
  }
  const file = path.join(config.dataDir, 'secrets.json')
  const stored =
    config.auditSigningKey === undefined
      ? withAuditKey(file, readOrCreate(file))
      : readOrCreate(file)
  if (stored.audit_signing_key !== undefined && !isSigningKey(stored.audit_signing_key)) {
    throw new Error(`${file} holds no valid audit_signing_key; restore it from a backup`)
  }
  return {
    jwtSecret: config.jwtSecret ?? stored.jwt_secret,
    encryptionKey: config.encryptionKey ?? Buffer.from(stored.encryption_key, 'hex'),
    auditSigningKey: config.auditSigningKey ?? stored.audit_signing_key!,
    file,
  }
}

/**
 * The audit signing key secrets.json holds now: `switchboard audit rotate-key` replaces it while
 * instances run, and they pick it up from here (modules/audit/checkpoints.ts). Undefined when the
 * file cannot be read or holds no valid key.
 */
export function readAuditSigningKey(file: string): string | undefined {
  try {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SecretsFile>
    return typeof stored.audit_signing_key === 'string' && isSigningKey(stored.audit_signing_key)
      ? stored.audit_signing_key
      : undefined
  } catch {
    return undefined
  }
}

export interface StagedSecrets {
  /** Puts the staged file in place of secrets.json (an atomic rename). */
  commit(): void
  /** Throws the staged file away. */
  abort(): void
}

/**
 * Writes new values for secrets.json beside it without replacing it yet, so a key rotation can
 * re-encrypt the database first and swap the file only once that has committed.
 */
export function stageSecretsFile(
  file: string,
  values: { jwtSecret: string; encryptionKey: Buffer },
): StagedSecrets {
  const staged = `${file}.next`
  const current = JSON.parse(fs.readFileSync(file, 'utf8')) as SecretsFile
  const content: SecretsFile = {
    ...current,
    jwt_secret: values.jwtSecret,
    encryption_key: values.encryptionKey.toString('hex'),
  }
  fs.writeFileSync(staged, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 })
  return {
    commit: () => fs.renameSync(staged, file),
    abort: () => fs.rmSync(staged, { force: true }),
  }
}

/**
 * Writes secrets.json with a new audit signing key beside it, for `switchboard audit rotate-key`:
 * put in place only once the rotation (its event and the checkpoint signed by both keys) committed.
 */
export function stageAuditSigningKey(file: string, auditSigningKey: string): StagedSecrets {
  const staged = `${file}.next`
  const current = JSON.parse(fs.readFileSync(file, 'utf8')) as SecretsFile
  fs.writeFileSync(
    staged,
    `${JSON.stringify({ ...current, audit_signing_key: auditSigningKey }, null, 2)}\n`,
    { mode: 0o600 },
  )
  return {
    commit: () => fs.renameSync(staged, file),
    abort: () => fs.rmSync(staged, { force: true }),
  }
}
