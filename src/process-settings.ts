/**
 * The process settings the service starts with (ARCHITECTURE.md, "Runtime and footprint"), chosen
 * by measurement on the embedded default:
 *
 * - `--max-semi-space-size=1` (MiB): V8's young generation otherwise grows to 2 × 16 MiB during
 *   start-up and under load and stays committed — 18 MiB of the idle footprint and more at the
 *   peak. A request allocates a few KiB that die young, so small semi-spaces cost no measurable
 *   throughput (bench: CPU per request the same within noise at 1, 4 and 16 MiB).
 * - `MALLOC_ARENA_MAX=2`: glibc gives every thread that allocates (V8's platform workers, libuv's
 *   pool running argon2 and file I/O) its own malloc arena, each keeping freed memory; two arenas
 *   saved ≈3 MiB idle here. Ignored by other C libraries.
 *
 * An operator's own choice wins: a semi-space size in the command line or NODE_OPTIONS, or a
 * MALLOC_ARENA_MAX in the environment, is left as it is. Imports nothing, so the entry point can
 * apply it before loading anything.
 */
export const SEMI_SPACE_FLAG = '--max-semi-space-size=1'
export const MALLOC_ARENA_MAX = '2'

export interface ProcessSettings {
  /** Node options to start with (before the script). */
  execArgv: string[]
  env: Record<string, string>
}

/** What the process must be restarted with, or null when it already runs with the settings. */
export function processSettings(execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>): ProcessSettings | null {
  const hasSemiSpace = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].some((option) => option.startsWith('--max-semi-space-size'))
  if (hasSemiSpace) return null
  return {
    execArgv: [...execArgv, SEMI_SPACE_FLAG],
    env: { ...definedOnly(env), MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? MALLOC_ARENA_MAX },
  }
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
}
