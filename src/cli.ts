#!/usr/bin/env node
/**
 * Operator commands: `switchboard <command>` (or `npm run cli -- <command>`).
 *
 *   migrate                                   apply pending database migrations
 *   create-admin --email E --name N           create an administrator; the password is read from
 *                                             standard input (prompted for on a terminal)
 *   reset-mfa EMAIL                           remove a user's MFA (audited)
 *   rotate-keys [--new-key-stdin] [--jwt-secret]
 *                                             re-encrypt stored secrets under a new ENCRYPTION_KEY
 */
// First: stops an unsupported Node with one line before the imports below are evaluated.
import './supported-node.js'
import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { ConfigError, parseConfig } from './config.js'
import { migrateToLatest } from './db/migrate.js'
import { createDeps, type Deps } from './deps.js'
import { AppError } from './errors.js'
import { createLogger } from './logger.js'
import { NewUserFields } from './modules/users/schemas.js'
import { createAdministrator, normalizeEmail } from './modules/users/service.js'
import { findUserByEmail } from './modules/users/repo.js'
import { resetMfa } from './modules/mfa/service.js'
import { reencryptSecrets } from './modules/keys/service.js'
import { stageSecretsFile } from './lib/secrets.js'
import { Body } from './lib/schema-types.js'
import { compileBodyValidator } from './plugins/validation.js'

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
  rotate-keys [--new-key-stdin] [--jwt-secret]
                                           re-encrypt every stored secret under a new ENCRYPTION_KEY
                                           (generated, or 64 hex characters read from stdin);
                                           --jwt-secret also replaces a generated JWT secret
                                           (signs everyone out). Stop the other instances first.
`

/** Reads one line from stdin; on a terminal, prompts and does not echo what is typed. */
async function readLine(io: CliIo, prompt = 'Password: '): Promise<string> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() })
  if (io.stdin.isTTY) io.stdout.write(prompt)
  const lines = createInterface({ input: io.stdin, output: io.stdin.isTTY ? muted : undefined, terminal: Boolean(io.stdin.isTTY) })
  try {
    for await (const line of lines) return line
    return ''
  } finally {
    lines.close()
    if (io.stdin.isTTY) io.stdout.write('\n')
  }
}

/**
 * Re-encrypts the stored secrets, then puts the new key where the running configuration keeps it:
 * secrets.json is swapped only after the database committed; a key from the environment is printed
 * (when generated) for the operator to install.
 */
async function rotateKeys(deps: Deps, io: CliIo, options: { newKey: Buffer; generated: boolean; jwtSecret: boolean }): Promise<number> {
  const keyInFile = deps.config.encryptionKey === undefined && deps.secrets.file !== null
  const jwtInFile = deps.config.jwtSecret === undefined && deps.secrets.file !== null
  if (options.jwtSecret && !jwtInFile) {
    io.stderr.write('switchboard: JWT_SECRET comes from the environment; change it there (every session ends)\n')
    return 2
  }
  const staged =
    keyInFile || options.jwtSecret
      ? stageSecretsFile(deps.secrets.file!, {
          jwtSecret: options.jwtSecret ? randomBytes(48).toString('base64url') : deps.secrets.jwtSecret,
          encryptionKey: keyInFile ? options.newKey : deps.secrets.encryptionKey,
        })
      : null
  let counts: Record<string, number>
  try {
    counts = await reencryptSecrets(deps, options.newKey)
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
  else if (options.generated) io.stdout.write(`set ENCRYPTION_KEY=${options.newKey.toString('hex')} on every instance and restart them\n`)
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
        const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, name: { type: 'string' } } })
        if (values.email === undefined || values.name === undefined) {
          io.stderr.write(`create-admin needs --email and --name\n\n${USAGE}`)
          return 2
        }
        const input = { email: values.email, name: values.name }
        const problems = compileBodyValidator(Body(NewUserFields))(input)
        if (problems !== null) {
          io.stderr.write(`switchboard: ${problems.map((p) => `--${p.field} ${p.message}`).join('; ')}\n`)
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
      case 'rotate-keys': {
        const { values } = parseArgs({ args: rest, options: { 'new-key-stdin': { type: 'boolean' }, 'jwt-secret': { type: 'boolean' } } })
        let newKey = randomBytes(32)
        if (values['new-key-stdin']) {
          const line = (await readLine(io)).trim()
          if (!/^[0-9a-fA-F]{64}$/.test(line)) {
            io.stderr.write('switchboard: the new key must be 64 hex characters (32 bytes)\n')
            return 2
          }
          newKey = Buffer.from(line, 'hex')
        }
        return withDeps(io, (deps) => rotateKeys(deps, io, { newKey, generated: !values['new-key-stdin'], jwtSecret: Boolean(values['jwt-secret']) }))
      }
      default:
        io.stderr.write(USAGE)
        return command === undefined || command === 'help' || command === '--help' ? 0 : 2
    }
  } catch (error) {
    if (error instanceof ConfigError) io.stderr.write(`switchboard: ${error.message}\n`)
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void runCli(process.argv.slice(2), { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then((code) =>
    process.exit(code),
  )
}
