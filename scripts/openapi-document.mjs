/**
 * Writes the OpenAPI document of the built application (dist/) to a file, as /api/openapi.json
 * serves it: the app is built on a throwaway SQLite database in a temporary directory, which is
 * removed afterwards. Used by `npm run lint:openapi`, so the linter checks exactly what is served.
 *
 *   node scripts/openapi-document.mjs <output.json>
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { buildApp } from '../dist/app.js'
import { parseConfig } from '../dist/config.js'
import { createDeps } from '../dist/deps.js'

/** Builds the app on a throwaway database, writes what GET /api/openapi.json serves to `file`. */
export async function writeOpenApiDocument(file) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-openapi-'))
  try {
    const config = parseConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'openapi.db')}`,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      PUBLIC_URL: 'https://switchboard.example.org',
      LOG_LEVEL: 'silent',
    })
    const deps = createDeps(config)
    const app = await buildApp(deps)
    try {
      await app.ready()
      const response = await app.inject({ method: 'GET', url: '/api/openapi.json' })
      if (response.statusCode !== 200)
        throw new Error(`GET /api/openapi.json answered ${response.statusCode}`)
      fs.writeFileSync(file, JSON.stringify(response.json(), null, 2))
    } finally {
      await app.close()
      await deps.close()
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === import.meta.filename) {
  if (!process.argv[2]) {
    console.error('usage: node scripts/openapi-document.mjs <output.json>')
    process.exit(2)
  }
  await writeOpenApiDocument(process.argv[2])
}
