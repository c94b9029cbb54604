/**
 * Runs the built server (dist/server.js) as a real process, as an operator would: `npm test`
 * builds first, so these tests exercise exactly what `npm start` runs.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export const SERVER_ENTRY = path.resolve(import.meta.dirname, '../../dist/server.js')

export interface ServerProcess {
  child: ChildProcess
  baseUrl: string
  output: () => string
  exited: Promise<number | null>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

export function assertBuilt(): void {
  if (!fs.existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run "npm run build" (npm test does it first)`)
}

/** Starts the server with PORT=0 and resolves once it listens, with the address it chose. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  assertBuilt()
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000)
    const check = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout.on('data', check)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`server exited before listening:\n${output}`))
    })
  })
  return {
    child,
    baseUrl,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Runs a command of the built distribution to completion. */
export function runProcess(entry: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => resolve({ code, output }))
  })
}
