/**
 * The per-request logger, made only when something logs. Fastify gives every request a child of
 * the application's logger bound to its request id; with pino's redaction, building that child is
 * a measurable share of a request's CPU (docs/decisions/0013-request-path.md) though at the
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

  // Methods on the prototype, not arrow-function fields: every request makes one of these, and
  // fields would allocate six closures each time.
  #log(level: Level, args: Parameters<LogFn>): void {
    if (this.#child !== undefined || this.parent.isLevelEnabled(level)) this.#real()[level](...args)
  }

  get level(): LevelWithSilentOrString {
    return this.#child?.level ?? this.parent.level
  }
  set level(level: LevelWithSilentOrString) {
    this.#real().level = level
  }

  fatal(...args: Parameters<LogFn>): void {
    this.#log('fatal', args)
  }
  error(...args: Parameters<LogFn>): void {
    this.#log('error', args)
  }
  warn(...args: Parameters<LogFn>): void {
    this.#log('warn', args)
  }
  info(...args: Parameters<LogFn>): void {
    this.#log('info', args)
  }
  debug(...args: Parameters<LogFn>): void {
    this.#log('debug', args)
  }
  trace(...args: Parameters<LogFn>): void {
    this.#log('trace', args)
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options)
  }
}

export const deferredChildLoggerFactory: FastifyChildLoggerFactory = (
  logger,
  bindings,
  options,
) => {
  const parent = logger as ParentLogger
  // A route with its own log level (or anything else unusual) gets the child at once.
  if (Object.keys(options).length > 0 || typeof parent.isLevelEnabled !== 'function')
    return logger.child(bindings, options)
  return new DeferredChild(parent, bindings)
}
