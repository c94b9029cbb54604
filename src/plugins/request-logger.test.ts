import { Writable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { createLogger } from '../logger.js'
import { deferredChildLoggerFactory } from './request-logger.js'

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)
      done()
    },
  })
  const logger = createLogger({ logLevel: level as 'warn' }, destination)
  return { logger, lines }
}

const make = (logger: FastifyBaseLogger, options = {}) =>
  deferredChildLoggerFactory.call(
    undefined as never,
    logger,
    { request_id: 'req-1' },
    options,
    undefined as never,
  )

describe('the deferred request logger', () => {
  it('makes no child for lines below the level, and a child with the request id for the first line written', () => {
    const { logger, lines } = capture('warn')
    const child = vi.spyOn(logger, 'child')
    const log = make(logger)
    log.info({ detail: 1 }, 'not written')
    log.debug('not written either')
    expect(child).not.toHaveBeenCalled()
    log.warn({ user: { password: 'hunter2' } }, 'written')
    log.error('again')
    expect(child).toHaveBeenCalledTimes(1)
    expect(lines.map((line) => [line.msg, line.request_id])).toEqual([
      ['written', 'req-1'],
      ['again', 'req-1'],
    ])
    // The application logger's redaction still applies.
    expect(lines[0]!.user).toEqual({ password: '[redacted]' })
    expect(log.level).toBe('warn')
  })

  it('gives a route with its own options the child at once', () => {
    const { logger } = capture('info')
    const child = vi.spyOn(logger, 'child')
    make(logger, { level: 'debug' })
    expect(child).toHaveBeenCalledTimes(1)
  })
})
