/**
 * Serves the web console (web/, built by Vite into dist/web) from the API's own process.
 *
 * - Hashed assets (/assets/…) never change under their name: cached for a year, immutable, and
 *   sent precompressed (.br/.gz written by the build) when the browser accepts it.
 * - index.html is the same document for every console path (the router in the page decides what to
 *   show) and is never cached, so a deployment takes effect on the next navigation.
 * - The history fallback covers console paths only: /api/* and /go/* keep their own JSON answers
 *   and 404s, and any other unknown path stays the JSON 404 of the error envelope — except for a
 *   browser asking for a page (Accept: text/html), which gets index.html with status 404 and sees
 *   the console's not-found page.
 * - Console pages get a CSP that allows only this origin's scripts (no inline script exists) and
 *   forbids framing.
 */
import fs from 'node:fs'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { AppError } from '../errors.js'
import type { PageNotFound } from './errors.js'

/** Paths the console's router owns; each also covers everything below it. */
export const CONSOLE_PATHS = [
  '/setup',
  '/login',
  '/account',
  '/verify-email',
  '/invitations',
  '/links',
  '/orgs',
  '/admin',
  '/forgot-password',
  '/reset-password',
]

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // React Aria inserts one fixed <style> (touch-action for pressable elements); its hash allows
  // exactly that text and nothing else. The browser tests fail on any CSP violation, so a library
  // update that changes the text is noticed.
  "style-src 'self' 'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o='",
  // The authenticator QR code is an SVG image shown from a data: URL.
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const ASSET_MAX_AGE = 'public, max-age=31536000, immutable'

/**
 * The directory holding package.json above `from`: src/, dist/ and the bundled dist/start.js all
 * find the same root.
 */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) return from
  }
}

/** The repository's dist/web, wherever this code runs from. */
export const DEFAULT_CONSOLE_DIR = path.join(packageRoot(import.meta.dirname), 'dist', 'web')

export interface ConsoleOptions {
  root: string
  /** Receives the answer for a browser's page request at an unknown address. */
  setPageNotFound?: (handler: PageNotFound) => void
}

/**
 * Registers the console routes; returns false (and serves nothing) when the console is not built.
 */
export async function installConsole(
  app: FastifyInstance,
  options: ConsoleOptions,
): Promise<boolean> {
  const indexFile = path.join(options.root, 'index.html')
  if (!fs.existsSync(indexFile)) {
    app.log.warn({ root: options.root }, 'web console not built: run "npm run build" to serve it')
    return false
  }

  const assetsDir = path.join(options.root, 'assets')
  // The built files, fixed at build time: a name outside this set is a plain JSON 404 before any
  // file-system access (and no path can climb out of the directory).
  const assets = new Set(fs.readdirSync(assetsDir).filter((name) => !/\.(br|gz)$/.test(name)))
  await app.register(fastifyStatic, {
    root: assetsDir,
    serve: false,
    preCompressed: true,
    index: false,
    cacheControl: false,
    setHeaders: (reply, file) => {
      reply.header('cache-control', file.startsWith(assetsDir) ? ASSET_MAX_AGE : 'no-store')
    },
  })

  const route = { schema: { hide: true }, config: { auth: 'public' as const } }
  app.get<{ Params: { '*': string } }>('/assets/*', route, (request, reply) => {
    const name = request.params['*']
    if (!assets.has(name)) throw new AppError('NOT_FOUND')
    return reply.sendFile(name, assetsDir)
  })

  const sendIndex = (reply: FastifyReply) => {
    reply.header('cache-control', 'no-store')
    reply.header('content-security-policy', CONSOLE_CSP)
    return reply.sendFile('index.html', options.root, { cacheControl: false })
  }

  // The same document with status 404: the console's router shows its not-found page.
  options.setPageNotFound?.((_request, reply) => sendIndex(reply.code(404)))

  app.get('/', route, (_request, reply) => sendIndex(reply))
  for (const prefix of CONSOLE_PATHS) {
    app.get(prefix, route, (_request, reply) => sendIndex(reply))
    app.get(`${prefix}/*`, route, (_request, reply) => sendIndex(reply))
  }
  return true
}
