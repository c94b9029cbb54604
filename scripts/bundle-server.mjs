#!/usr/bin/env node
/**
 * Part of `npm run build:server`, after tsc: bundles the service's start-up graph (dist/start.js,
 * everything it imports statically, and the pure-JavaScript dependencies among them) into that
 * file and three chunks beside it (dist/start-*.js). Loading ~1,400 separate modules is most of
 * the start-up CPU (resolution, package.json lookups, per-module records) and ~13 MiB of heap; a
 * handful needs neither (docs/decisions/0002-start-up-footprint.md). Four files rather than one:
 * V8 parses a module's top level in one piece, and the 12 MiB that one 2 MB file takes to parse
 * stay with glibc for the life of the process; parsed one after another, the chunks reuse about
 * 2.5 MiB (docs/decisions/0059-idle-memory.md). The other files of dist/ (cli.js, app.js for the
 * scripts) stay as tsc wrote them, and tests run the sources.
 *
 * Left outside the bundle, loaded from node_modules at run time:
 * - what is loaded only when configured or first used (through createRequire or import(): the
 *   PostgreSQL and Redis drivers, Stripe, nodemailer, openid-client, qrcode, undici, the password
 *   dictionary, the WebAuthn library, the bookmark-file parser) — bundling would evaluate them at
 *   start-up;
 * - native code (@node-rs/argon2) and packages that read their own files (@fastify/swagger-ui's
 *   explorer assets);
 * - what a dependency requires only inside a function that the service never calls in production
 *   (light-my-request: fastify's inject(), which the tests use on the sources).
 *
 * Some dependencies require, as they load, a package that the service then seldom or never calls.
 * Bundled, each would hold its source, compiled top-level code and objects for the life of the
 * process (docs/decisions/0002-start-up-footprint.md).
 * Instead a stand-in is bundled (scripts/bundle-stand-ins.mjs) that loads the real package from
 * node_modules on first use.
 */
import fs from 'node:fs'
import path from 'node:path'
import { build } from 'rolldown'
import { standIns } from './bundle-stand-ins.mjs'

const root = path.resolve(import.meta.dirname, '..')
const entry = path.join(root, 'dist/start.js')
const LOADED_AT_RUN_TIME = [
  '@fastify/swagger-ui',
  '@node-rs/argon2',
  '@simplewebauthn/server',
  '@zxcvbn-ts/core',
  '@zxcvbn-ts/language-common',
  'ioredis',
  'htmlparser2',
  '@streamparser/json',
  'nodemailer',
  'openid-client',
  'pg',
  'qrcode',
  'stripe',
  'undici',
  'light-my-request',
]
const external = (id) =>
  id.startsWith('node:') ||
  LOADED_AT_RUN_TIME.some((name) => id === name || id.startsWith(`${name}/`))

/**
 * The chunks, each about as large as the service's own code (≈ 0.4–0.7 MB): the query builder,
 * the schema libraries (TypeBox, Ajv and the serializer compiler), and the other libraries.
 */
const CHUNKS = [
  { name: 'kysely', test: /node_modules[\\/]kysely[\\/]/ },
  {
    name: 'schemas',
    test: /node_modules[\\/](@sinclair[\\/]typebox|ajv|ajv-formats|fast-json-stringify|fast-uri|json-schema-resolver|@fastify[\\/](ajv-compiler|fast-json-stringify-compiler|merge-json-schemas))[\\/]/,
  },
  { name: 'libraries', test: /node_modules[\\/]/ },
]

const staging = path.join(root, 'dist/.bundle')
await build({
  plugins: [standIns],
  input: entry,
  platform: 'node',
  external,
  logLevel: 'warn',
  output: {
    dir: staging,
    format: 'esm',
    codeSplitting: { groups: CHUNKS },
    entryFileNames: 'start.js',
    chunkFileNames: 'start-[name].js',
    sourcemap: true,
    // V8 keeps a module's source for its lifetime, as two bytes per character once one character is
    // outside Latin-1 (a "—" in a comment will do): ASCII escapes and no comments halve that
    // string.
    charset: 'ascii',
    comments: { legal: false, annotation: false, jsdoc: false },
    // V8 keeps the source of every module for the process's life: local names are shortened
    // (a fifth less source); functions and classes keep their names,
    // so stack traces, error names and logs stay readable. No other rewriting (compress) is done.
    minify: { compress: false, mangle: { keepNames: true }, codegen: { removeWhitespace: true } },
  },
})
for (const file of fs.readdirSync(staging))
  fs.renameSync(path.join(staging, file), path.join(root, 'dist', file))
fs.rmSync(staging, { recursive: true, force: true })
