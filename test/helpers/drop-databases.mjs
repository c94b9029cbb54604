/**
 * Drops test databases, `parallel` at a time (each drop waits for a checkpoint; drops waiting
 * together share one). Imported by the PostgreSQL global setup, and run as a process of its own
 * at the end of a run: `node drop-databases.mjs <server url> <parallel> <name>…`.
 */
import { fileURLToPath } from 'node:url'
import pg from 'pg'

/** @param {string} url @param {string[]} names @param {number} parallel */
export async function dropAll(url, names, parallel) {
  const left = [...names]
  const worker = async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      for (let name = left.pop(); name !== undefined; name = left.pop())
        await client.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`)
    } finally {
      await client.end()
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, left.length) }, worker))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, parallel, ...names] = process.argv.slice(2)
  await dropAll(url, names, Number(parallel))
}
