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
 *
 * Each command is one function in src/cli/ (accounts, keys, operations, audit), found by name in
 * the table below.
 */
// First: stops an unsupported Node with one line before the imports below are evaluated.
import './supported-node.js'
import fs from 'node:fs'
import { pathToFileURL } from 'node:url'
import { createAdmin, resetMfa, resetPassword, setupCode } from './cli/accounts.js'
import { audit } from './cli/audit.js'
import { USAGE, type CliIo, type Command } from './cli/io.js'
import { ENCRYPTED_STORES, rotateKeys } from './cli/keys.js'
import { backup, doctor, migrate, restore } from './cli/operations.js'
import { ConfigError } from './config.js'
import { AppError } from './errors.js'
import { OpsError } from './modules/ops/backup.js'

export type { CliIo }
export { ENCRYPTED_STORES }

/** Every command by its name; each is one function in src/cli/. */
const COMMANDS: Readonly<Record<string, Command>> = {
  migrate,
  'create-admin': createAdmin,
  'reset-mfa': resetMfa,
  'reset-password': resetPassword,
  'rotate-keys': rotateKeys,
  backup,
  restore,
  doctor,
  'setup-code': setupCode,
  audit,
}

const HELP = new Set([undefined, 'help', '--help'])

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv
  const command = name === undefined || !Object.hasOwn(COMMANDS, name) ? undefined : COMMANDS[name]
  if (command === undefined) {
    io.stderr.write(USAGE)
    return HELP.has(name) ? 0 : 2
  }
  try {
    return await command(args, io)
  } catch (error) {
    io.stderr.write(`switchboard: ${describeFailure(error)}\n`)
    return 1
  }
}

/** One line for what stopped a command: the message, and an AppError's details. */
function describeFailure(error: unknown): string {
  if (error instanceof ConfigError || error instanceof OpsError) return error.message
  if (!(error instanceof AppError)) return (error as Error).message
  const details = Array.isArray(error.details)
    ? error.details.map((d) => `${d.field} ${d.message}`).join('; ')
    : typeof error.details === 'object'
      ? `needs ${error.details.required}`
      : error.details
  return `${error.message}${details ? ` (${details})` : ''}`
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
