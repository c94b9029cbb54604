/**
 * Request, header and keep-alive timeouts close connections that slow clients
 * hold open. Raw sockets against a listening server (inject() has no connection to time out).
 */
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'

const t = useTestApp({
  env: {
    REQUEST_TIMEOUT_SECONDS: '2',
    HEADERS_TIMEOUT_SECONDS: '1',
    KEEP_ALIVE_TIMEOUT_SECONDS: '1',
  },
})
let port: number

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as AddressInfo).port
})

/** Opens a socket, runs `drip` on it, and resolves with the seconds until the server closed it. */
function secondsUntilClosed(
  drip: (socket: net.Socket) => void,
  giveUpAfterMs = 15_000,
): Promise<{ seconds: number; received: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const socket = net.connect(port, '127.0.0.1')
    let received = ''
    const timer = setInterval(() => {
      if (socket.destroyed || socket.writableEnded) return
      drip(socket)
    }, 250)
    const giveUp = setTimeout(() => {
      clearInterval(timer)
      socket.destroy()
      reject(new Error('the server kept the connection open'))
    }, giveUpAfterMs)
    socket.on('data', (chunk) => (received += chunk.toString()))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ seconds: (performance.now() - started) / 1000, received })
    })
    socket.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    )
  })
}

describe('slow clients', () => {
  it('a slow-body connection is closed after the request timeout', async () => {
    const { seconds, received } = await secondsUntilClosed((socket) => socket.write(' '))
    expect(seconds).toBeGreaterThanOrEqual(1.5)
    expect(seconds).toBeLessThan(6)
    expect(received).toMatch(/^HTTP\/1\.1 408/)
    expect(received).toContain('"reason":"REQUEST_TIMEOUT"')
  })

  it('a connection that dribbles its headers is closed after the headers timeout', async () => {
    const started = performance.now()
    const closed = await new Promise<number>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\n'),
      )
      const timer = setInterval(() => !socket.destroyed && socket.write('X-Slow: 1\r\n'), 200)
      socket.on('error', () => undefined)
      socket.on('close', () => {
        clearInterval(timer)
        resolve((performance.now() - started) / 1000)
      })
    })
    expect(closed).toBeLessThan(5)
  })

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const started = performance.now()
    const closed = await new Promise<{ seconds: number; received: string }>((resolve) => {
      let received = ''
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n'),
      )
      socket.on('data', (chunk) => (received += chunk.toString()))
      socket.on('error', () => undefined)
      socket.on('close', () => resolve({ seconds: (performance.now() - started) / 1000, received }))
    })
    expect(closed.received).toMatch(/^HTTP\/1\.1 200/)
    expect(closed.seconds).toBeLessThan(4)
  })
})
