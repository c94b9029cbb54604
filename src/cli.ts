#!/usr/bin/env node
/**
 * Operator commands: `switchboard <command>` (or `npm run cli -- <command>`).
 *
 *   migrate                                   apply pending database migrations
 *   create-admin --email E --name N           create an administrator; the password is read from
 *                                             standard input (prompted for on a terminal)
 *   reset-mfa EMAIL                           remove a user's MFA (audited)
 *   reset-password EMAIL                      print a single-use password reset link (audited)
 *   rotate-keys [--new-key-stdin] [--jwt-secret]
 *                                             re-encrypt stored secrets under a new ENCRYPTION_KEY
 *   backup FILE                               consistent online copy of the SQLite database
 *                                             (PostgreSQL: prints the pg_dump invocation)
 *   restore FILE [--force]                    restore a backup over a stopped instance's database
 *   doctor                                    check the configuration, database, Redis, SMTP, proxy
 *   setup-code                                print the first-run setup code (while no user exists)
 *   audit verify <export-file> [--key K] [--checkpoint FILE] [--threads N] | --database
 *                                             check the audit log's integrity
 *   audit rotate-key [--new-key-stdin]        replace the audit log's signing key
 */
// First: stops an unsupported Node with one line before the imports below are evaluated.
import './supported-node.js'
import fs from 'node:fs'
import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigError, parseConfig } from './config.js'
import { createDatabase } from './db/client.js'
import { migrateToLatest } from './db/migrate.js'
import { createDeps, type Deps } from './deps.js'
import { AppError } from './errors.js'
import { createLogger } from './logger.js'
import { NewUserFields } from './modules/users/schemas.js'
import { createAdministrator, normalizeEmail } from './modules/users/service.js'
import { anyUserExists, findUserByEmail } from './modules/users/repo.js'
import { resetMfa } from './modules/mfa/service.js'
import { createResetLinkForOperator } from './modules/password-reset/service.js'
import { setupCodeFor } from './modules/auth/setup-code.js'
import { reencryptSecrets } from './modules/keys/service.js'
import type { EncryptedStore } from './modules/keys/rewrap.js'
import { mfaSecrets } from './modules/mfa/key-rotation.js'
import { oidcSecrets } from './modules/oidc/key-rotation.js'
import { invitationTokens } from './modules/organizations/key-rotation.js'
import { settingsSecrets } from './modules/settings/key-rotation.js'
import { stageAuditSigningKey, stageSecretsFile } from './lib/secrets.js'
import { generateSigningKey, isSigningKey } from './lib/signed-note.js'
import { rotateSigningKey, type RotationResult } from './modules/audit/key-rotation.js'
import { Body } from './lib/schema-types.js'
import { describeProblem } from './modules/audit/verify.js'
import { verifyExportFile } from './modules/audit/export-verifier.js'
import { checkDatabase } from './modules/audit/integrity.js'
import { compileBodyValidator } from './plugins/validation.js'
import {
  backupSqlite,
  OpsError,
  pgDumpCommand,
  pgRestoreCommand,
  restoreSqlite,
} from './modules/ops/backup.js'
import { formatResults, runDoctor } from './modules/ops/doctor.js'

export interface CliIo {
  env: Record<string, string | undefined>
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
}

const USAGE = `usage: switchboard <command>

commands:
  migrate                                  apply pending database migrations
  create-admin --email <email> --name <name>
                                           create an administrator; the password is read from
                                           standard input (you are prompted on a terminal)
  reset-mfa <email>                        remove a user's two-factor authentication (lost device)
  reset-password <email>                   print a single-use link (valid 24 hours) that sets a new
                                           password; two-factor authentication stays on
  rotate-keys [--new-key-stdin] [--jwt-secret]
                                           re-encrypt every stored secret under a new ENCRYPTION_KEY
                                           (generated, or 64 hex characters read from stdin);
                                           --jwt-secret also replaces a generated JWT secret
                                           (signs everyone out). Stop the other instances first.
  backup <file>                            write a consistent, verified copy of the SQLite database
                                           while the service runs (mode 0600); on PostgreSQL, print
                                           the pg_dump command to run instead (exit code 3)
  restore <file> [--force]                 replace the stopped instance's SQLite database with a
                                           backup, then migrate it; --force replaces existing data
                                           (on PostgreSQL, print the pg_restore command; exit code 3)
  doctor                                   check the configuration as the service reads it: data
                                           directory, secrets, database, Redis, SMTP, PUBLIC_URL and
                                           TRUST_PROXY; exit code 1 when a check fails
  setup-code                               print the first-run setup code (only while no user exists)
  audit verify <export-file> [--key <verifier key>] [--checkpoint <saved checkpoint file>]
               [--threads <n>]             check a verifiable audit export offline: exit 0 when
                                           intact, else 1 and the first bad entry and why; a large
                                           export is checked on one worker thread per core (or n;
                                           0: on the main thread alone)
  audit verify --database                  check the live database against its signed checkpoints
  audit rotate-key [--new-key-stdin]       replace the audit log's signing key: an audited rotation
                                           whose checkpoint is signed by the old and the new key
                                           (generated, or base64 PKCS #8 Ed25519 read from stdin).
                                           Stop the other instances first; restart them after.
`

/** Exit code of backup/restore on PostgreSQL: nothing was written; the printed command does it. */
const EXIT_RUN_PRINTED_COMMAND = 3

/** What a backup does not contain and a restore needs: the keys of the encrypted settings. */
function keysReminder(config: {
  dataDir: string
  jwtSecret?: string
  encryptionKey?: Buffer
}): string {
  return config.jwtSecret !== undefined && config.encryptionKey !== undefined
    ? 'keep JWT_SECRET and ENCRYPTION_KEY with it: without them encrypted settings cannot be read\n'
    : `keep ${path.join(config.dataDir, 'secrets.json')} with it: without it encrypted settings cannot be read\n`
}

/** Reads one line from stdin; on a terminal, prompts and does not echo what is typed. */
async function readLine(io: CliIo, prompt = 'Password: '): Promise<string> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() })
  if (io.stdin.isTTY) io.stdout.write(prompt)
  const lines = createInterface({
    input: io.stdin,
    output: io.stdin.isTTY ? muted : undefined,
    terminal: Boolean(io.stdin.isTTY),
  })
  try {
    for await (const line of lines) return line
    return ''
  } finally {
    lines.close()
    if (io.stdin.isTTY) io.stdout.write('\n')
  }
}

/**
 * Every store of ciphertext in the database, registered with the rotation (modules/keys knows
 * none): a module that adds encrypted columns defines its store and adds it here.
 */
export const ENCRYPTED_STORES: readonly EncryptedStore[] = [
  mfaSecrets,
  settingsSecrets,
  oidcSecrets,
  invitationTokens,
]

/**
 * Re-encrypts the stored secrets, then puts the new key where the running configuration keeps it:
 * secrets.json is swapped only after the database committed; a key from the environment is printed
 * (when generated) for the operator to install.
 */
async function rotateKeys(
  deps: Deps,
  io: CliIo,
  options: { newKey: Buffer; generated: boolean; jwtSecret: boolean },
): Promise<number> {
  const keyInFile = deps.config.encryptionKey === undefined && deps.secrets.file !== null
  const jwtInFile = deps.config.jwtSecret === undefined && deps.secrets.file !== null
  if (options.jwtSecret && !jwtInFile) {
    io.stderr.write(
      'switchboard: JWT_SECRET comes from the environment; change it there (every session ends)\n',
    )
    return 2
  }
  const staged =
    keyInFile || options.jwtSecret
      ? stageSecretsFile(deps.secrets.file!, {
          jwtSecret: options.jwtSecret
            ? randomBytes(48).toString('base64url')
            : deps.secrets.jwtSecret,
          encryptionKey: keyInFile ? options.newKey : deps.secrets.encryptionKey,
        })
      : null
  let counts: Record<string, number>
  try {
    counts = await reencryptSecrets(deps, options.newKey, ENCRYPTED_STORES)
  } catch (error) {
    staged?.abort()
    throw error
  }
  staged?.commit()
  io.stdout.write(
    `re-encrypted: ${
      Object.entries(counts)
        .map(([name, n]) => `${name}=${n}`)
        .join(', ') || 'nothing'
    }\n`,
  )
  if (keyInFile) io.stdout.write(`the new key is in ${deps.secrets.file}; restart every instance\n`)
  else if (options.generated)
    io.stdout.write(
      `set ENCRYPTION_KEY=${options.newKey.toString('hex')} on every instance and restart them\n`,
    )
  else io.stdout.write('set ENCRYPTION_KEY to the new key on every instance and restart them\n')
  if (options.jwtSecret) io.stdout.write('the JWT secret was replaced: every session ends\n')
  return 0
}

async function withDeps<T>(io: CliIo, run: (deps: Deps) => Promise<T>): Promise<T> {
  const config = parseConfig(io.env)
  // Commands print their own results; the log only carries warnings and errors.
  const deps = createDeps(config, { logger: createLogger({ logLevel: 'warn' }) })
  try {
    await migrateToLatest(deps.database)
    return await run(deps)
  } finally {
    await deps.close()
  }
}

/**
 * `audit rotate-key`: the rotation is recorded and signed by both keys first; the new key replaces
 * the one in secrets.json only after that committed, or is printed (when generated) for the
 * operator to put into AUDIT_SIGNING_KEY.
 */
async function rotateAuditKey(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { 'new-key-stdin': { type: 'boolean' } } })
  let newKey = generateSigningKey()
  if (values['new-key-stdin']) {
    newKey = (await readLine(io, 'New audit signing key: ')).trim()
    if (!isSigningKey(newKey)) {
      io.stderr.write(
        'switchboard: the new key must be an Ed25519 private key, base64 PKCS #8 DER (as AUDIT_SIGNING_KEY)\n',
      )
      return 2
    }
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
      `audit signing key rotated: the checkpoint of ${rotation.treeSize} events is signed by both keys\n` +
        `old verifier key (stays published): ${rotation.oldVerifierKey}\nnew verifier key: ${rotation.newVerifierKey}\n`,
    )
    if (keyInFile)
      io.stdout.write(`the new key is in ${deps.secrets.file}; restart every instance\n`)
    else if (!values['new-key-stdin'])
      io.stdout.write(`set AUDIT_SIGNING_KEY=${newKey} on every instance and restart them\n`)
    else
      io.stdout.write('set AUDIT_SIGNING_KEY to the new key on every instance and restart them\n')
    return 0
  })
}

/** `audit verify …`: 0 intact, 1 not intact (one line: the first bad entry and why), 2 usage. */
async function auditCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args
  if (sub === 'rotate-key') return rotateAuditKey(rest, io)
  const { values, positionals } = parseArgs({
    args: rest,
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
  if (
    sub !== 'verify' ||
    (values.database === true) === (positionals.length === 1) ||
    positionals.length > 1 ||
    badThreads
  ) {
    io.stderr.write(
      `audit verify needs an export file or --database (or: audit rotate-key)\n\n${USAGE}`,
    )
    return 2
  }
  if (values.database) {
    const result = await withDeps(io, checkDatabase)
    if (result.problem !== null) {
      io.stdout.write(`audit log NOT intact: ${describeProblem(result.problem)}\n`)
      return 1
    }
    io.stdout.write(
      `audit log intact: ${result.size} leaves, ${result.checkpoints} signed roots matched\n`,
    )
    return 0
  }
  // A key is given as its text, or as a file holding it.
  const key =
    values.key !== undefined && fs.existsSync(values.key)
      ? fs.readFileSync(values.key, 'utf8').trim()
      : values.key
  const saved =
    values.checkpoint === undefined ? undefined : fs.readFileSync(values.checkpoint, 'utf8')
  const result = await verifyExportFile(positionals[0]!, {
    ...(key !== undefined && { verifierKey: key }),
    ...(saved !== undefined && { savedCheckpoint: saved }),
    ...(threads !== undefined && { threads }),
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

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case 'migrate': {
        await withDeps(io, async () => undefined)
        io.stdout.write('database is up to date\n')
        return 0
      }
      case 'create-admin': {
        const { values } = parseArgs({
          args: rest,
          options: { email: { type: 'string' }, name: { type: 'string' } },
        })
        if (values.email === undefined || values.name === undefined) {
          io.stderr.write(`create-admin needs --email and --name\n\n${USAGE}`)
          return 2
        }
        const input = { email: values.email, name: values.name }
        const problems = compileBodyValidator(Body(NewUserFields))(input)
        if (problems !== null) {
          io.stderr.write(
            `switchboard: ${problems.map((p) => `--${p.field} ${p.message}`).join('; ')}\n`,
          )
          return 2
        }
        const password = await readLine(io)
        const user = await withDeps(io, (deps) => createAdministrator(deps, { ...input, password }))
        io.stdout.write(`created administrator ${user.email} (id ${user.id})\n`)
        return 0
      }
      case 'reset-mfa': {
        const [email] = rest
        if (email === undefined || rest.length !== 1) {
          io.stderr.write(`reset-mfa needs exactly one email\n\n${USAGE}`)
          return 2
        }
        const reset = await withDeps(io, async (deps) => {
          const user = await findUserByEmail(deps.db, normalizeEmail(email))
          if (user === null) return null
          await resetMfa(deps, null, user.id, { ip: null, userAgent: null }, 'cli')
          return user
        })
        if (reset === null) {
          io.stderr.write(`switchboard: no user with the email ${email}\n`)
          return 1
        }
        io.stdout.write(`two-factor authentication removed for ${reset.email}\n`)
        return 0
      }
      case 'reset-password': {
        const [email] = rest
        if (email === undefined || rest.length !== 1) {
          io.stderr.write(`reset-password needs exactly one email\n\n${USAGE}`)
          return 2
        }
        const link = await withDeps(io, (deps) => createResetLinkForOperator(deps, email))
        if (link === null) {
          io.stderr.write(`switchboard: no user with the email ${email}\n`)
          return 1
        }
        io.stdout.write(
          `password reset link for ${link.email} (single use, valid until ${link.expires_at}):\n${link.url}\n` +
            'opening it sets a new password and signs the account out everywhere; two-factor authentication stays on\n',
        )
        return 0
      }
      case 'rotate-keys': {
        const { values } = parseArgs({
          args: rest,
          options: { 'new-key-stdin': { type: 'boolean' }, 'jwt-secret': { type: 'boolean' } },
        })
        let newKey = randomBytes(32)
        if (values['new-key-stdin']) {
          const line = (await readLine(io)).trim()
          if (!/^[0-9a-fA-F]{64}$/.test(line)) {
            io.stderr.write('switchboard: the new key must be 64 hex characters (32 bytes)\n')
            return 2
          }
          newKey = Buffer.from(line, 'hex')
        }
        return withDeps(io, (deps) =>
          rotateKeys(deps, io, {
            newKey,
            generated: !values['new-key-stdin'],
            jwtSecret: Boolean(values['jwt-secret']),
          }),
        )
      }
      case 'backup': {
        const [file] = rest
        if (file === undefined || rest.length !== 1) {
          io.stderr.write(`backup needs exactly one file\n\n${USAGE}`)
          return 2
        }
        const config = parseConfig(io.env)
        if (config.database.kind === 'postgres') {
          io.stdout.write(
            `PostgreSQL is backed up with its own tool; run (the password as in DATABASE_URL):\n  ${pgDumpCommand(config.database, file)}\n`,
          )
          io.stdout.write(keysReminder(config))
          return EXIT_RUN_PRINTED_COMMAND
        }
        const report = backupSqlite(config.database, file)
        io.stdout.write(
          `backup written to ${report.file} (${report.bytes} bytes, ${report.migrations} migrations, integrity check ok)\n`,
        )
        io.stdout.write(keysReminder(config))
        return 0
      }
      case 'restore': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { force: { type: 'boolean' } },
        })
        const [file] = positionals
        if (file === undefined || positionals.length !== 1) {
          io.stderr.write(`restore needs exactly one file\n\n${USAGE}`)
          return 2
        }
        const config = parseConfig(io.env)
        if (config.database.kind === 'postgres') {
          io.stdout.write(
            `PostgreSQL is restored with its own tool, into an empty database, with the service stopped; run (the password as in DATABASE_URL):\n  ${pgRestoreCommand(config.database, file)}\nthen start the service: it applies pending migrations\n`,
          )
          return EXIT_RUN_PRINTED_COMMAND
        }
        const restored = restoreSqlite(config.database, file, { force: Boolean(values.force) })
        io.stdout.write(
          `restored ${restored.file} from ${path.resolve(file)} (${restored.migrations} migrations, integrity check ok)\n`,
        )
        // Only the database: createDeps would generate a secrets file, which cannot open the
        // restored secrets.
        const database = createDatabase(config.database, { warn: () => undefined })
        try {
          await migrateToLatest(database)
        } finally {
          await database.close()
        }
        io.stdout.write('database is up to date\n')
        const keysInEnvironment =
          config.jwtSecret !== undefined && config.encryptionKey !== undefined
        const secretsFile = path.join(config.dataDir, 'secrets.json')
        if (keysInEnvironment)
          io.stdout.write(
            'set JWT_SECRET and ENCRYPTION_KEY as on the instance that was backed up, then start the service\n',
          )
        else if (fs.existsSync(secretsFile))
          io.stdout.write(
            `${secretsFile} must be the one of the instance that was backed up; then start the service\n`,
          )
        else
          io.stdout.write(
            `copy the backed-up instance's secrets.json to ${secretsFile} (mode 0600) before starting the service: without it encrypted settings cannot be read\n`,
          )
        return 0
      }
      case 'doctor': {
        const results = await runDoctor(io.env)
        io.stdout.write(formatResults(results))
        return results.some((result) => result.status === 'fail') ? 1 : 0
      }
      case 'setup-code': {
        // The code on demand, for a terminal the operator no longer sees (a container's start-up
        // output); it opens nothing once a user exists, so it is not printed then either.
        const code = await withDeps(io, async (deps) =>
          (await anyUserExists(deps.db)) ? null : setupCodeFor(deps),
        )
        if (code === null) {
          io.stderr.write('switchboard: the instance is already set up; there is no setup code\n')
          return 1
        }
        io.stdout.write(`${code}\n`)
        return 0
      }
      case 'audit':
        return await auditCommand(rest, io)
      default:
        io.stderr.write(USAGE)
        return command === undefined || command === 'help' || command === '--help' ? 0 : 2
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof OpsError)
      io.stderr.write(`switchboard: ${error.message}\n`)
    else if (error instanceof AppError) {
      const details = Array.isArray(error.details)
        ? error.details.map((d) => `${d.field} ${d.message}`).join('; ')
        : typeof error.details === 'object'
          ? `needs ${error.details.required}`
          : error.details
      io.stderr.write(`switchboard: ${error.message}${details ? ` (${details})` : ''}\n`)
    } else io.stderr.write(`switchboard: ${(error as Error).message}\n`)
    return 1
  }
}

/**
 * The path the process was started with, through symlinks (npm's `bin` link, the image's
 * /usr/local/bin/switchboard).
 */
function entryPath(): string {
  try {
    return fs.realpathSync(process.argv[1] ?? '')
  } catch {
    return process.argv[1] ?? ''
  }
}

if (import.meta.url === pathToFileURL(entryPath()).href) {
  void runCli(process.argv.slice(2), {
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  }).then((code) => process.exit(code))
}
