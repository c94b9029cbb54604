/** What every operator command shares: its streams, the usage text, a password prompt, deps. */
import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { parseConfig } from '../config.js'
import { migrateToLatest } from '../db/migrate.js'
import { createDeps, type Deps } from '../deps.js'
import { createLogger } from '../logger.js'

export interface CliIo {
  env: Record<string, string | undefined>
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
}

/** One operator command: its arguments after the command's name, its exit code. */
export type Command = (args: string[], io: CliIo) => Promise<number>

export const USAGE = `usage: switchboard <command>

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

/** Exit code of a command used wrongly, after saying how (and the usage). */
export function usageError(io: CliIo, problem: string): number {
  io.stderr.write(`${problem}\n\n${USAGE}`)
  return 2
}

/** The single argument of a command that takes exactly one (an email, a file), or undefined. */
export function onlyArgument(args: string[]): string | undefined {
  return args.length === 1 ? args[0] : undefined
}

/** Reads one line from stdin; on a terminal, prompts and does not echo what is typed. */
export async function readLine(io: CliIo, prompt = 'Password: '): Promise<string> {
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

/** Runs `run` with the service's dependencies on a migrated database, then closes them. */
export async function withDeps<T>(io: CliIo, run: (deps: Deps) => Promise<T>): Promise<T> {
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
