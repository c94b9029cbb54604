/**
 * The per-request logger, made only when something logs. Fastify gives every request a child of
 * the application's logger bound to its request id; with pino's redaction, building that child was
 * a measurable share of a request's CPU (ARCHITECTURE.md, "Runtime and footprint") though at the
 * default levels most requests log nothing. This stands in for the child: a level that is off costs
 * a check, and the first line actually written makes the real child, with the same bindings — every
 * line still carries the request id.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { FastifyChildLoggerFactory } from 'fastify/types/logger.js'
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from 'pino'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

interface ParentLogger extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean
}

class DeferredChild implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined
  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Bindings,
  ) {}

  #real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings))
  }

  #at(level: Level): LogFn {
    return (...args: Parameters<LogFn>) => {
      if (this.#child !== undefined || this.parent.isLevelEnabled(level)) this.#real()[level](...args)
    }
  }

  get level(): LevelWithSilentOrString {
    return this.#child?.level ?? this.parent.level
  }
  set level(level: LevelWithSilentOrString) {
    this.#real().level = level
  }

  fatal = this.#at('fatal')
  error = this.#at('error')
  warn = this.#at('warn')
  info = this.#at('info')
  debug = this.#at('debug')
  trace = this.#at('trace')
  silent: LogFn = () => undefined

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options)
  }
}

export const deferredChildLoggerFactory: FastifyChildLoggerFactory = (logger, bindings, options) => {
  const parent = logger as ParentLogger
  // A route with its own log level (or anything else unusual) gets the child at once.
  if (Object.keys(options).length > 0 || typeof parent.isLevelEnabled !== 'function') return logger.child(bindings, options)
  return new DeferredChild(parent, bindings)
}
