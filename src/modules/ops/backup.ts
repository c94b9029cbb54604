/**
 * Backups and restores of the database.
 *
 * SQLite: `VACUUM INTO` copies the database as one read transaction
 * (https://sqlite.org/lang_vacuum.html#vacuuminto), so the copy is a consistent snapshot even while
 * the service writes — in WAL mode readers and the writer do not block each other — which a file
 * copy of a live database and its WAL is not. The copy goes to a temporary file created 0600 beside
 * the target, is switched to a rollback journal (one self-contained file), passes SQLite's
 * integrity check and must carry Switchboard's migration history; only then is it renamed over the
 * target (atomic within a directory) and the directory synced. A restore does the same checks on a
 * copy inside the target directory and renames that into place, with the service stopped
 * (instance-lock.ts), then migrates.
 *
 * PostgreSQL has its own tools, which also see the whole database consistently (pg_dump runs in one
 * repeatable-read transaction); the commands print the exact pg_dump / pg_restore invocation for
 * the configured database, its password masked.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import type { DatabaseConfig } from '../../config.js'
import { loadNodeSqlite } from '../../db/sqlite.js'
import { migrations } from '../../migrations/index.js'
import { runningInstance } from './instance-lock.js'
import { migratedSchemaObjects, unknownObjects } from './schema-objects.js'

/** A refusal with a message for the operator (no stack, no secret). */
export class OpsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OpsError'
  }
}

const SQLITE_HEADER = 'SQLite format 3\0'

export interface BackupReport {
  file: string
  bytes: number
  migrations: number
}

function temporaryBeside(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  )
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Makes a rename durable: the directory entry is on disk, not only the file's data. */
function syncDirectory(directory: string): void {
  let fd: number | undefined
  try {
    fd = fs.openSync(directory, 'r')
    fs.fsyncSync(fd)
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

function hasSqliteHeader(file: string): boolean {
  const fd = fs.openSync(file, 'r')
  try {
    const header = Buffer.alloc(16)
    return fs.readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === SQLITE_HEADER
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Checks a copy the way a restore relies on it: SQLite's own integrity check, then Switchboard's
 * migration history, none of it from a newer version. Returns the number of applied migrations.
 * The copy is switched to a rollback journal first, so it is one file with no WAL beside it.
 */
function verifyCopy(file: string, describe: string): string[] {
  if (!hasSqliteHeader(file)) throw new OpsError(`${describe} is not an SQLite database`)
  const { DatabaseSync: Database } = loadNodeSqlite()
  let database: DatabaseSync | undefined
  try {
    database = new Database(file)
    database.exec('pragma journal_mode = DELETE')
    const problems = (
      database.prepare('pragma integrity_check').all() as { integrity_check: string }[]
    ).map((row) => row.integrity_check)
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw new OpsError(
        `${describe} failed SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`,
      )
    }
    const table = database
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get()
    if (table === undefined)
      throw new OpsError(`${describe} is not a Switchboard database (it has no migration history)`)
    const applied = (
      database.prepare('select name from kysely_migration order by name').all() as {
        name: string
      }[]
    ).map((row) => row.name)
    const unknown = applied.filter((name) => !(name in migrations))
    if (unknown.length > 0) {
      throw new OpsError(
        `${describe} was written by a newer version of Switchboard (migrations ${unknown.join(', ')}); install that version first`,
      )
    }
    return applied
  } catch (error) {
    if (error instanceof OpsError) throw error
    // "file is not a database", "database disk image is malformed", …: SQLite's words say enough.
    throw new OpsError(`${describe} cannot be read as a database: ${(error as Error).message}`)
  } finally {
    database?.close()
  }
}

function sqliteFile(database: DatabaseConfig): string {
  if (database.kind !== 'sqlite' || database.sqlitePath === undefined)
    throw new OpsError('the database is not SQLite')
  if (database.sqlitePath === ':memory:')
    throw new OpsError('an in-memory database has nothing to back up or restore')
  return database.sqlitePath
}

/**
 * An online, consistent, verified copy of the SQLite database at `target`, written atomically with
 * mode 0600.
 */
export function backupSqlite(database: DatabaseConfig, target: string): BackupReport {
  const source = sqliteFile(database)
  const file = path.resolve(target)
  if (!fs.existsSync(source))
    throw new OpsError(
      `there is no database at ${source} yet (the service creates it on first start)`,
    )
  if (file === source) throw new OpsError('the backup file must not be the database itself')
  if (!fs.existsSync(path.dirname(file)))
    throw new OpsError(`the directory ${path.dirname(file)} does not exist`)
  if (fs.existsSync(file) && !fs.statSync(file).isFile())
    throw new OpsError(`${file} exists and is not a regular file`)

  const temporary = temporaryBeside(file)
  // Created empty and 0600 first: VACUUM INTO fills an empty file and keeps its mode, so the copy
  // of password hashes and encrypted secrets is never readable by others, not even for a moment.
  fs.closeSync(fs.openSync(temporary, 'wx', 0o600))
  try {
    const { DatabaseSync: Database } = loadNodeSqlite()
    const live = new Database(source)
    try {
      // The service may hold the write lock for a moment; VACUUM INTO waits for a read snapshot.
      live.exec('pragma busy_timeout = 10000')
      live.prepare('vacuum into ?').run(temporary)
    } finally {
      live.close()
    }
    const applied = verifyCopy(temporary, 'the copy')
    fs.chmodSync(temporary, 0o600)
    syncFile(temporary)
    fs.renameSync(temporary, file)
    syncDirectory(path.dirname(file))
    return { file, bytes: fs.statSync(file).size, migrations: applied.length }
  } catch (error) {
    fs.rmSync(temporary, { force: true })
    throw error
  }
}

export interface RestoreOptions {
  force: boolean
}

/** True when the target database exists with content (or an unmerged WAL). */
function hasData(file: string): boolean {
  for (const candidate of [file, `${file}-wal`]) {
    try {
      if (fs.statSync(candidate).size > 0) return true
    } catch {
      // Missing: nothing there.
    }
  }
  return false
}

/** The copy's schema objects (tables, indexes, triggers, views) by type and name. */
function schemaObjectsOf(file: string): Array<{ type: string; name: string }> {
  const { DatabaseSync: Database } = loadNodeSqlite()
  const database = new Database(file)
  try {
    return database.prepare('select type, name from sqlite_master').all() as Array<{
      type: string
      name: string
    }>
  } finally {
    database.close()
  }
}

/**
 * Refuses a copy holding any schema object a fresh database migrated to the same migrations would
 * not have: a planted trigger runs with every write and leaves no audit event.
 */
async function assertMigratedSchemaOnly(
  file: string,
  applied: string[],
  describe: string,
): Promise<void> {
  const unknown = unknownObjects(schemaObjectsOf(file), await migratedSchemaObjects(applied))
  if (unknown.length > 0) {
    throw new OpsError(
      `${describe} holds schema objects no migration creates (${unknown.slice(0, 5).join(', ')}); ` +
        'it was altered after the backup was taken, so it is not restored',
    )
  }
}

/**
 * Puts a verified copy of `backup` in place of the SQLite database of a stopped instance. The
 * caller migrates it afterwards. Refuses while a service holds the database, when the target has
 * data unless `force`, and a copy with schema objects the migrations do not create.
 */
export async function restoreSqlite(
  database: DatabaseConfig,
  backup: string,
  options: RestoreOptions,
): Promise<{ file: string; migrations: number }> {
  const target = sqliteFile(database)
  const source = path.resolve(backup)
  if (!fs.existsSync(source) || !fs.statSync(source).isFile())
    throw new OpsError(`${source} is not a file`)
  const running = runningInstance(target)
  if (running !== null) {
    throw new OpsError(
      running.checkable
        ? `the service is running (PID ${running.pid}) on ${target}; stop it first`
        : `the database is marked as in use by PID ${running.pid} on host ${running.host} (${running.file}); stop that service first, or remove the file if it is certainly stopped`,
    )
  }
  if (hasData(target) && !options.force) {
    throw new OpsError(
      `${target} already holds a database; pass --force to replace it (back it up first)`,
    )
  }
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 })
  const temporary = temporaryBeside(target)
  try {
    fs.copyFileSync(source, temporary, fs.constants.COPYFILE_EXCL)
    fs.chmodSync(temporary, 0o600)
    const applied = verifyCopy(temporary, `${source}`)
    await assertMigratedSchemaOnly(temporary, applied, source)
    syncFile(temporary)
    // The old database's WAL and shared memory belong to the old file: applied to the restored one
    // they would corrupt it.
    for (const suffix of ['-wal', '-shm', '-journal'])
      fs.rmSync(`${target}${suffix}`, { force: true })
    fs.renameSync(temporary, target)
    syncDirectory(path.dirname(target))
    return { file: target, migrations: applied.length }
  } catch (error) {
    fs.rmSync(temporary, { force: true })
    throw error
  }
}

/** Quotes a word for a POSIX shell. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

interface PgTarget {
  /** The connection string without its password. */
  url: string
  hasPassword: boolean
  /** The schema the service uses when DATABASE_URL selects one (options=-c search_path=…). */
  schema: string | null
}

function pgTarget(database: DatabaseConfig): PgTarget {
  const url = new URL(database.url)
  const hasPassword = url.password !== ''
  url.password = ''
  const searchPath =
    /(?:^|\s)-c\s*search_path=([^\s,]+)/.exec(url.searchParams.get('options') ?? '')?.[1] ?? null
  // libpq decodes percent-escapes only; a `+` from form encoding (URLSearchParams) would stay a
  // `+`.
  const query = [...url.searchParams]
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&')
  url.search = query === '' ? '' : `?${query}`
  return { url: url.toString(), hasPassword, schema: searchPath }
}

/**
 * The pg_dump invocation for the configured database: custom format (compressed, restorable
 * selectively), without owners and privileges so it restores under another role; with pg_trgm
 * (pg_dump 14 or later). The password is masked; libpq reads it from PGPASSWORD or ~/.pgpass.
 */
export function pgDumpCommand(database: DatabaseConfig, file: string): string {
  const target = pgTarget(database)
  const words = ['pg_dump', '--format=custom', '--no-owner', '--no-privileges']
  // A dump of one schema leaves out the extensions its indexes need: name the one the links'
  // search uses (a whole-database dump has it anyway).
  if (target.schema !== null) words.push(`--schema=${target.schema}`, '--extension=pg_trgm')
  words.push(`--file=${path.resolve(file)}`, target.url)
  return `${target.hasPassword ? 'PGPASSWORD=*** ' : ''}${words.map(shellQuote).join(' ')}`
}

/**
 * The pg_restore invocation into the configured (empty) database; the service migrates it at start.
 */
export function pgRestoreCommand(database: DatabaseConfig, file: string): string {
  const target = pgTarget(database)
  const words = [
    'pg_restore',
    '--no-owner',
    '--no-privileges',
    '--exit-on-error',
    `--dbname=${target.url}`,
    path.resolve(file),
  ]
  return `${target.hasPassword ? 'PGPASSWORD=*** ' : ''}${words.map(shellQuote).join(' ')}`
}
