/**
 * `node dist/server.js`: checks the Node version before loading anything that could fail on an
 * older one, turns on Node's module compile cache (start-up is mostly compiling modules; the cache
 * makes every later start cheaper), then starts the service (start.ts).
 */
import module from 'node:module'
import { exitUnlessSupportedNode } from './node-version.js'

exitUnlessSupportedNode()
module.enableCompileCache?.()
await import('./start.js')
