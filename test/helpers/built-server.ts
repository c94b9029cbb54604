/**
 * Where the built server is, and the check that it was built. Its own module without imports of
 * the test helpers, so plain `node` can load it for `npm run screenshots` (which cannot resolve
 * the suite's `.js` specifiers to `.ts` files the way Vitest does).
 */
import fs from 'node:fs'
import path from 'node:path'

export const SERVER_ENTRY = path.resolve(import.meta.dirname, '../../dist/server.js')

export function assertBuilt(): void {
  if (!fs.existsSync(SERVER_ENTRY))
    throw new Error(`${SERVER_ENTRY} is missing: run "npm run build" (npm test does it first)`)
}
