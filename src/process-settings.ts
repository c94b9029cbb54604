/**
 * The process settings the service starts with (ARCHITECTURE.md, "Runtime and footprint"), chosen
 * by measurement on the embedded default:
 *
 * - `--max-semi-space-size=1` (MiB): V8's young generation otherwise grows to 2 × 16 MiB during
 *   start-up and under load and stays committed — 18 MiB of the idle footprint and more at the
 *   peak. A request allocates a few KiB that die young, so small semi-spaces cost no measurable
 *   throughput (bench: CPU per request the same within noise at 1, 4 and 16 MiB).
 * - `--no-maglev`: V8's mid-tier compiler compiles many functions under load, each compile taking
 *   zone memory that glibc then keeps (heaptrack: up to 18 MiB of compiler zones at once). Without
 *   it hot code goes from the baseline tier straight to TurboFan: 10–20 MiB less resident under
 *   load, CPU per request the same within noise once warm (measured; the first seconds of load
 *   are slower).
 * - `--heap-growing-percent=20`: after a full collection V8 lets the old generation grow by a
 *   factor it picks from its collection speed, up to 4; here it let 20 MiB of live objects grow
 *   to 30–47 MiB of mostly dead ones under sign-ins (their requests outlive two scavenges while
 *   they wait for the hash, so everything they allocated is promoted). Growing by 20 %, or V8's
 *   minimum step of 8 MiB, collects at 22–23 MiB instead: the bench's peak fell by 5–25 MiB,
 *   CPU per request the same within noise (ARCHITECTURE.md, "Seventh pass").
 * - `--no-allocation-site-pretenuring`: V8 allocates straight into the old generation the objects
 *   of an allocation site whose objects it saw survive scavenges. With 1 MiB semi-spaces a
 *   scavenge runs every 1–2 ms under load, so the rows of a PostgreSQL batch in flight (pg's row
 *   parsing, the timestamp conversion) were often caught alive, their sites pretenured, and every
 *   later row went to the old generation: 7 MiB of garbage there per 0.35 s, a full collection each
 *   time (2–6 ms pauses with 4 ms incremental steps), which every request in flight waited out.
 *   Without it those rows die young: on PostgreSQL full collections fell from 13 to 2 per 5 s and
 *   the p99 of GET /api/users/me from 2.2–2.4 to 1.4 ms, p999 from 10–12 to 4–5 ms (10
 *   connections); SQLite, whose reads finish within the turn, had none either way
 *   (ARCHITECTURE.md, "Ninth pass").
 * - `--expose-gc`: start.ts runs one memory-reducing collection before it listens. Loading the
 *   bundle, migrating and registering routes leave garbage that an idle process never collects
 *   (V8 starts a full collection only as the heap grows); returning it lowers the idle footprint.
 * - `MALLOC_ARENA_MAX=2`: glibc gives every thread that allocates (V8's platform workers, libuv's
 *   pool running argon2 and file I/O) its own malloc arena, each keeping freed memory; two arenas
 *   saved ≈3 MiB idle here. Ignored by other C libraries.
 * - `MALLOC_TRIM_THRESHOLD_=131072`, glibc's initial value, set so that it stays: glibc otherwise
 *   raises its mmap threshold to the size of any large block freed (start-up frees some of 2 MiB:
 *   the module compile cache as read, the bundle's source before decoding), and its trim threshold
 *   to twice that, so it kept up to 4 MiB of freed
 *   memory at the top of the heap for the life of the process. Fixed, blocks over 128 KiB get
 *   their own mapping and return it when freed (idle 88.4 → 86.5 MiB, median of 7 starts).
 *
 * An operator's own choice wins: a semi-space size in the command line or NODE_OPTIONS (the process
 * then runs as given), a Maglev, pretenuring or heap-growing option, or a MALLOC_ARENA_MAX or
 * MALLOC_TRIM_THRESHOLD_ in the environment, is left as it is.
 * Imports nothing, so the entry point can apply it before loading anything.
 */
export const SEMI_SPACE_FLAG = '--max-semi-space-size=1'
export const NO_MAGLEV_FLAG = '--no-maglev'
export const HEAP_GROWING_FLAG = '--heap-growing-percent=20'
export const NO_PRETENURING_FLAG = '--no-allocation-site-pretenuring'
export const EXPOSE_GC_FLAG = '--expose-gc'
export const MALLOC_ARENA_MAX = '2'
export const MALLOC_TRIM_THRESHOLD = '131072'

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

/** What the process must be restarted with, or null when it already runs with the settings. */
export function processSettings(
  execArgv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ProcessSettings | null {
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
    },
  }
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  )
}
