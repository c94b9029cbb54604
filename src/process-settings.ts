/**
 * The process settings the service starts with, each chosen by measurement on the embedded default
 * (docs/decisions/0003-v8-and-malloc-settings.md):
 *
 * - `--max-semi-space-size=1` (MiB): V8's young generation otherwise grows to 2 × 16 MiB and stays
 *   committed. A request allocates a few KiB that die young, so small semi-spaces cost no
 *   measurable throughput.
 * - `--no-maglev`: the mid-tier compiler's zone memory is kept by glibc once freed; without it hot
 *   code goes from the baseline tier straight to TurboFan, at the same CPU per request once warm.
 * - `--heap-growing-percent=20`: sign-ins wait for the hash long enough for everything their
 *   requests allocate to be promoted; V8's own growth factor (up to 4) then lets the old generation
 *   fill with dead objects before the next full collection, and 20 % keeps the peak down.
 * - `--no-allocation-site-pretenuring`: with 1 MiB semi-spaces, rows of a PostgreSQL batch in
 *   flight are often caught alive by a scavenge, V8 pretenures their allocation sites, and every
 *   later row goes to the old generation, whose full collections every request in flight waits out
 *   (docs/decisions/0004-no-allocation-site-pretenuring.md).
 * - `--expose-gc`: start.ts runs one memory-reducing collection before it listens. Start-up leaves
 *   garbage that an idle process never collects (V8 starts a full collection only as the heap
 *   grows); returning it lowers the idle footprint.
 * - `MALLOC_ARENA_MAX=2`: glibc gives every thread that allocates its own malloc arena, each
 *   keeping freed memory. Ignored by other C libraries.
 * - `MALLOC_TRIM_THRESHOLD_=524288`, fixed: glibc otherwise raises its mmap and trim thresholds
 *   after start-up frees a large block, and then keeps up to 4 MiB of freed memory at the top of
 *   the heap for the life of the process. Not lower: a page of links on a large SQLite database
 *   frees some 300 KiB as its statements end, which a lower threshold hands back to the kernel
 *   after each page and faults in again on the next.
 *
 * An operator's own choice wins: a semi-space size in the command line or NODE_OPTIONS (the process
 * then runs as given), a Maglev, pretenuring or heap-growing option, or a MALLOC_ARENA_MAX or
 * MALLOC_TRIM_THRESHOLD_ in the environment, is left as it is. PROCESS_TUNING=off turns all of it
 * off: the service then runs as plain `node` with Node's defaults.
 *
 * The V8 flags are V8's, not Node's: a Node release may rename or drop one, and a process started
 * with a flag its V8 does not know exits at once ("bad option"). The flags added are therefore
 * checked by the running Node itself before the restart (refusedFlags); one it does not know is
 * left out and named once on stderr, and the service starts without it.
 * Imports only Node's built-ins, so the entry point can apply it before loading anything.
 */
import { spawnSync } from 'node:child_process'

export const SEMI_SPACE_FLAG = '--max-semi-space-size=1'
export const NO_MAGLEV_FLAG = '--no-maglev'
export const HEAP_GROWING_FLAG = '--heap-growing-percent=20'
export const NO_PRETENURING_FLAG = '--no-allocation-site-pretenuring'
export const EXPOSE_GC_FLAG = '--expose-gc'
export const MALLOC_ARENA_MAX = '2'
export const MALLOC_TRIM_THRESHOLD = '524288'
/**
 * Set in the restarted process's environment: it already runs with the settings (or with as many
 * of them as its Node knows), so it does not restart again.
 */
export const TUNED_MARKER = 'SWITCHBOARD_PROCESS_TUNED'

/** Each added unless the operator gave an option of its kind (the pattern), as above. */
const UNLESS_CHOSEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/^--(no-)?maglev$/, NO_MAGLEV_FLAG],
  [/^--heap[-_]growing[-_]percent/, HEAP_GROWING_FLAG],
  [/^--(no[-_])?allocation[-_]site[-_]pretenuring$/, NO_PRETENURING_FLAG],
]

export interface ProcessSettings {
  /** Node options to start with (before the script). */
  execArgv: string[]
  env: Record<string, string>
}

/**
 * What the process must be restarted with, or null when it already runs with the settings, or
 * should run as plain `node` (PROCESS_TUNING=off; config.ts refuses a value other than on or off).
 */
export function processSettings(
  execArgv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ProcessSettings | null {
  if (env.PROCESS_TUNING?.trim() === 'off' || env[TUNED_MARKER] !== undefined) return null
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]
  if (given.some((option) => option.startsWith('--max-semi-space-size'))) return null
  const added = UNLESS_CHOSEN.filter(
    ([chosen]) => !given.some((option) => chosen.test(option)),
  ).map(([, flag]) => flag)
  return {
    execArgv: [...execArgv, SEMI_SPACE_FLAG, ...added, EXPOSE_GC_FLAG],
    env: {
      ...definedOnly(env),
      MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? MALLOC_ARENA_MAX,
      MALLOC_TRIM_THRESHOLD_: env.MALLOC_TRIM_THRESHOLD_ ?? MALLOC_TRIM_THRESHOLD,
      [TUNED_MARKER]: '1',
    },
  }
}

/**
 * The flags among `flags` that Node refused in its stderr: it names each option it does not know
 * on a line of its own, "node: bad option: --no-maglev", and exits with 9.
 */
export function refusedIn(stderr: string, flags: readonly string[]): string[] {
  const named = new Set([...stderr.matchAll(/bad option: (\S+)$/gm)].map((match) => match[1]))
  return flags.filter((flag) => named.has(flag))
}

/**
 * The flags the Node at `execPath` does not accept, asked by starting it with them and
 * `--version`: it checks its options, V8's included, then prints its version and exits (tens of
 * milliseconds; run only before a restart). All of them when it cannot be asked, or refuses them
 * without naming one.
 */
export function refusedFlags(execPath: string, flags: readonly string[]): string[] {
  const asked = spawnSync(execPath, [...flags, '--version'], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
  })
  if (asked.status === 0) return []
  const refused = refusedIn(asked.stderr ?? '', flags)
  return refused.length > 0 ? refused : [...flags]
}

/** The settings without the flags this Node refuses, and those flags. */
export function withoutRefusedFlags(
  settings: ProcessSettings,
  refused: readonly string[],
): { settings: ProcessSettings; unknown: string[] } {
  const unknown = settings.execArgv.filter((option) => refused.includes(option))
  const execArgv = settings.execArgv.filter((option) => !refused.includes(option))
  return { settings: { ...settings, execArgv }, unknown }
}

/** The line naming a flag left out, once, on stderr (the JSON log has not started yet). */
export function unknownFlagLine(flag: string, nodeVersion: string): string {
  return `switchboard: Node.js ${nodeVersion} does not know the V8 flag ${flag}; starting without it\n`
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  )
}
