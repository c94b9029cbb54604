/** Operator commands about the instance itself: migrate, backup, restore, doctor. */
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { parseConfig, type Config } from '../config.js'
import { createDatabase } from '../db/client.js'
import { migrateToLatest } from '../db/migrate.js'
import {
  backupSqlite,
  pgDumpCommand,
  pgRestoreCommand,
  restoreSqlite,
} from '../modules/ops/backup.js'
import { formatResults, runDoctor } from '../modules/ops/doctor.js'
import { onlyArgument, usageError, withDeps, type Command } from './io.js'

/** Exit code of backup/restore on PostgreSQL: nothing was written; the printed command does it. */
const EXIT_RUN_PRINTED_COMMAND = 3

export const migrate: Command = async (_args, io) => {
  await withDeps(io, async () => undefined)
  io.stdout.write('database is up to date\n')
  return 0
}

export const doctor: Command = async (_args, io) => {
  const results = await runDoctor(io.env)
  io.stdout.write(formatResults(results))
  return results.some((result) => result.status === 'fail') ? 1 : 0
}

/** What a backup does not contain and a restore needs: the keys of the encrypted settings. */
function keysReminder(config: Config): string {
  return config.jwtSecret !== undefined && config.encryptionKey !== undefined
    ? 'keep JWT_SECRET and ENCRYPTION_KEY with it: without them encrypted settings cannot be read\n'
    : `keep ${path.join(config.dataDir, 'secrets.json')} with it: ` +
        'without it encrypted settings cannot be read\n'
}

/** `backup FILE`: a verified online copy of SQLite; on PostgreSQL the pg_dump command. */
export const backup: Command = async (args, io) => {
  const file = onlyArgument(args)
  if (file === undefined) return usageError(io, 'backup needs exactly one file')
  const config = parseConfig(io.env)
  if (config.database.kind === 'postgres') {
    io.stdout.write(
      'PostgreSQL is backed up with its own tool; run (the password as in DATABASE_URL):\n' +
        `  ${pgDumpCommand(config.database, file)}\n`,
    )
    io.stdout.write(keysReminder(config))
    return EXIT_RUN_PRINTED_COMMAND
  }
  const report = backupSqlite(config.database, file)
  io.stdout.write(
    `backup written to ${report.file} (${report.bytes} bytes, ${report.migrations} migrations, ` +
      'integrity check ok)\n',
  )
  io.stdout.write(keysReminder(config))
  return 0
}

/** `restore FILE [--force]`: a backup over a stopped instance's SQLite database, migrated. */
export const restore: Command = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { force: { type: 'boolean' } },
  })
  const file = onlyArgument(positionals)
  if (file === undefined) return usageError(io, 'restore needs exactly one file')
  const config = parseConfig(io.env)
  if (config.database.kind === 'postgres') {
    io.stdout.write(
      'PostgreSQL is restored with its own tool, into an empty database, with the service ' +
        'stopped; run (the password as in DATABASE_URL):\n' +
        `  ${pgRestoreCommand(config.database, file)}\n` +
        'then start the service: it applies pending migrations\n',
    )
    return EXIT_RUN_PRINTED_COMMAND
  }
  const restored = await restoreSqlite(config.database, file, { force: Boolean(values.force) })
  io.stdout.write(
    `restored ${restored.file} from ${path.resolve(file)} (${restored.migrations} migrations, ` +
      'integrity check ok)\n',
  )
  await migrateDatabaseOnly(config)
  io.stdout.write('database is up to date\n')
  io.stdout.write(secretsAfterRestore(config))
  return 0
}

/**
 * Only the database: createDeps would generate a secrets file, which cannot open the restored
 * secrets.
 */
async function migrateDatabaseOnly(config: Config): Promise<void> {
  const database = createDatabase(config.database, { warn: () => undefined })
  try {
    await migrateToLatest(database)
  } finally {
    await database.close()
  }
}

/** The keys a restored database needs, where this instance finds them. */
function secretsAfterRestore(config: Config): string {
  if (config.jwtSecret !== undefined && config.encryptionKey !== undefined)
    return 'set JWT_SECRET and ENCRYPTION_KEY as on the instance that was backed up, then start the service\n'
  const secretsFile = path.join(config.dataDir, 'secrets.json')
  if (fs.existsSync(secretsFile))
    return `${secretsFile} must be the one of the instance that was backed up; then start the service\n`
  return (
    `copy the backed-up instance's secrets.json to ${secretsFile} (mode 0600) before starting ` +
    'the service: without it encrypted settings cannot be read\n'
  )
}
