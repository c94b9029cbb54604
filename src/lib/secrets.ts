/**
 * The two server secrets: the JWT signing secret and the encryption key for secrets at rest.
 * Configuration wins; otherwise they are generated on first start and kept in DATA_DIR/secrets.json
 * (mode 0600), so `npm start` works on a fresh machine with no manual step and sessions survive
 * restarts. Instances that share a database must share these (CONTRACT.md §13).
 */
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'

export interface Secrets {
  jwtSecret: string
  encryptionKey: Buffer
  /** Where a generated secret came from, for the start-up log; null when both came from configuration. */
  file: string | null
}

interface SecretsFile {
  jwt_secret: string
  encryption_key: string
}

function isSecretsFile(value: unknown): value is SecretsFile {
  const v = value as Partial<SecretsFile> | null
  return (
    typeof v?.jwt_secret === 'string' && v.jwt_secret.length >= 32 && typeof v.encryption_key === 'string' && /^[0-9a-f]{64}$/i.test(v.encryption_key)
  )
}

function readOrCreate(file: string): SecretsFile {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const generated: SecretsFile = {
    jwt_secret: randomBytes(48).toString('base64url'),
    encryption_key: randomBytes(32).toString('hex'),
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
  if (!isSecretsFile(stored)) throw new Error(`${file} is not a valid secrets file; restore it from a backup or remove it to start afresh`)
  return stored
}

export function resolveSecrets(config: { dataDir: string; jwtSecret?: string; encryptionKey?: Buffer }): Secrets {
  if (config.jwtSecret !== undefined && config.encryptionKey !== undefined) {
    return { jwtSecret: config.jwtSecret, encryptionKey: config.encryptionKey, file: null }
  }
  const file = path.join(config.dataDir, 'secrets.json')
  const stored = readOrCreate(file)
  return {
    jwtSecret: config.jwtSecret ?? stored.jwt_secret,
    encryptionKey: config.encryptionKey ?? Buffer.from(stored.encryption_key, 'hex'),
    file,
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
export function stageSecretsFile(file: string, values: { jwtSecret: string; encryptionKey: Buffer }): StagedSecrets {
  const staged = `${file}.next`
  const content: SecretsFile = { jwt_secret: values.jwtSecret, encryption_key: values.encryptionKey.toString('hex') }
  fs.writeFileSync(staged, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 })
  return {
    commit: () => fs.renameSync(staged, file),
    abort: () => fs.rmSync(staged, { force: true }),
  }
}
