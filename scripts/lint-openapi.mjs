/**
 * `npm run lint:openapi`: lints the OpenAPI document of the built application (dist/, so run
 * `npm run build` first; `npm test` does) with Redocly's recommended rules as errors
 * (redocly.yaml). Exits non-zero on any problem.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { writeOpenApiDocument } from './openapi-document.mjs'

const root = path.resolve(import.meta.dirname, '..')
if (!fs.existsSync(path.join(root, 'dist/app.js'))) {
  console.error('lint:openapi: dist/ is missing; run "npm run build" first')
  process.exit(2)
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-lint-'))
try {
  const file = path.join(dir, 'openapi.json')
  await writeOpenApiDocument(file)
  const result = spawnSync(
    path.join(root, 'node_modules/.bin/redocly'),
    ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'codeframe'],
    // No usage reports, no update checks: the lint must work offline and say nothing but findings.
    {
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  )
  process.exitCode = result.status ?? 1
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
