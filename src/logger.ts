/**
 * Structured JSON logs (pino). Requests are logged by method and path only: query strings can carry
 * one-time codes (OIDC callbacks) and headers carry credentials, so neither is ever written.
 */
import { pino, type DestinationStream, type Logger } from 'pino'
import type { Config } from './config.js'

export type { Logger }

interface LoggedRequest {
  method: string
  url: string
  ip?: string
}

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'switchboard' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: {
        req: (req: LoggedRequest) => ({
          method: req.method,
          path: req.url.split('?', 1)[0],
          ip: req.ip,
        }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        // No stack traces: they can quote values and are noise in production logs (see errors.ts).
        err: (err: Error & { code?: string }) => ({
          type: err.name,
          code: err.code,
          message: err.message,
        }),
      },
      // Defence in depth: if a credential-bearing object is ever logged whole, these are masked.
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.password',
          '*.current_password',
          '*.new_password',
          '*.token',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  )
}
