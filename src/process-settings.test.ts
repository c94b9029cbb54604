import { describe, expect, it } from 'vitest'
import {
  EXPOSE_GC_FLAG,
  HEAP_GROWING_FLAG,
  MALLOC_ARENA_MAX,
  MALLOC_TRIM_THRESHOLD,
  NO_MAGLEV_FLAG,
  NO_PRETENURING_FLAG,
  SEMI_SPACE_FLAG,
  processSettings,
} from './process-settings.js'

describe('process settings of the service (server.ts)', () => {
  it('adds the semi-space size, no Maglev, the heap growth, no pretenuring, the collection after start-up and the malloc settings, keeping the options and environment given', () => {
    expect(processSettings(['--enable-source-maps'], { PATH: '/bin', UNSET: undefined })).toEqual({
      execArgv: [
        '--enable-source-maps',
        SEMI_SPACE_FLAG,
        NO_MAGLEV_FLAG,
        HEAP_GROWING_FLAG,
        NO_PRETENURING_FLAG,
        EXPOSE_GC_FLAG,
      ],
      env: { PATH: '/bin', MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_: MALLOC_TRIM_THRESHOLD },
    })
  })

  it.each([
    ['--maglev', [SEMI_SPACE_FLAG, HEAP_GROWING_FLAG, NO_PRETENURING_FLAG, EXPOSE_GC_FLAG]],
    [
      '--heap-growing-percent=50',
      [SEMI_SPACE_FLAG, NO_MAGLEV_FLAG, NO_PRETENURING_FLAG, EXPOSE_GC_FLAG],
    ],
    [
      '--allocation-site-pretenuring',
      [SEMI_SPACE_FLAG, NO_MAGLEV_FLAG, HEAP_GROWING_FLAG, EXPOSE_GC_FLAG],
    ],
  ])('leaves an operator-chosen %s alone', (option, added) => {
    expect(processSettings([option], {})?.execArgv).toEqual([option, ...added])
  })

  it('sees an operator-chosen heap growth or pretenuring setting in NODE_OPTIONS too', () => {
    expect(
      processSettings([], { NODE_OPTIONS: '--heap_growing_percent=10' })?.execArgv,
    ).not.toContain(HEAP_GROWING_FLAG)
    expect(
      processSettings([], { NODE_OPTIONS: '--no_allocation_site_pretenuring' })?.execArgv,
    ).not.toContain(NO_PRETENURING_FLAG)
  })

  it('leaves operator-chosen malloc settings alone', () => {
    const { env } = processSettings([], {
      MALLOC_ARENA_MAX: '8',
      MALLOC_TRIM_THRESHOLD_: '1048576',
    })!
    expect(env).toMatchObject({ MALLOC_ARENA_MAX: '8', MALLOC_TRIM_THRESHOLD_: '1048576' })
  })

  it('is null once the process runs with a semi-space size, from the command line or NODE_OPTIONS (no restart loop)', () => {
    expect(processSettings([SEMI_SPACE_FLAG], {})).toBeNull()
    expect(processSettings(['--max-semi-space-size=8'], {})).toBeNull()
    expect(
      processSettings([], { NODE_OPTIONS: '--max-old-space-size=512 --max-semi-space-size=4' }),
    ).toBeNull()
  })
})
