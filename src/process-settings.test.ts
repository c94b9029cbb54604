import { describe, expect, it } from 'vitest'
import {
  EXPOSE_GC_FLAG,
  HEAP_GROWING_FLAG,
  MALLOC_ARENA_MAX,
  MALLOC_TRIM_THRESHOLD,
  NO_MAGLEV_FLAG,
  NO_PRETENURING_FLAG,
  SEMI_SPACE_FLAG,
  TUNED_MARKER,
  processSettings,
  refusedFlags,
  refusedIn,
  unknownFlagLine,
  withoutRefusedFlags,
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
      env: {
        PATH: '/bin',
        MALLOC_ARENA_MAX,
        MALLOC_TRIM_THRESHOLD_: MALLOC_TRIM_THRESHOLD,
        [TUNED_MARKER]: '1',
      },
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

  it('is null with PROCESS_TUNING=off: the service runs as plain node', () => {
    expect(processSettings([], { PROCESS_TUNING: 'off' })).toBeNull()
    expect(processSettings([], { PROCESS_TUNING: ' off ' })).toBeNull()
    expect(processSettings([], { PROCESS_TUNING: 'on' })).not.toBeNull()
  })

  it('is null in the restarted process, also when its Node knew none of the flags (no restart loop)', () => {
    const first = processSettings([], {})!
    expect(processSettings([], first.env)).toBeNull()
  })
})

describe('the V8 flags, checked by the running Node before the restart', () => {
  const added = processSettings([], {})!.execArgv

  it('reads the options Node refused from its stderr ("node: bad option: …"), and only those', () => {
    const stderr =
      'node: bad option: --no-maglev\nnode: bad option: --heap-growing-percent=20\n' +
      'node: bad option: --something-else\n'
    expect(refusedIn(stderr, added)).toEqual([NO_MAGLEV_FLAG, HEAP_GROWING_FLAG])
    expect(refusedIn('', added)).toEqual([])
  })

  it('finds every flag the service adds accepted by the Node running the suite', () => {
    expect(refusedFlags(process.execPath, added)).toEqual([])
  })

  it('names exactly the flags a Node refuses, asked with all of them at once', () => {
    const withUnknown = [SEMI_SPACE_FLAG, '--no-such-v8-flag', EXPOSE_GC_FLAG, '--nor-this=1']
    expect(refusedFlags(process.execPath, withUnknown)).toEqual([
      '--no-such-v8-flag',
      '--nor-this=1',
    ])
  })

  it('counts every flag as refused when the Node cannot be asked', () => {
    expect(refusedFlags('/nonexistent/node', added)).toEqual(added)
  })

  it('leaves out the refused flags and only those; the options given and the environment stay', () => {
    const wanted = processSettings(['--enable-source-maps'], {})!
    const { settings, unknown } = withoutRefusedFlags(wanted, [NO_MAGLEV_FLAG])
    expect(unknown).toEqual([NO_MAGLEV_FLAG])
    expect(settings.execArgv).toEqual([
      '--enable-source-maps',
      SEMI_SPACE_FLAG,
      HEAP_GROWING_FLAG,
      NO_PRETENURING_FLAG,
      EXPOSE_GC_FLAG,
    ])
    expect(settings.env).toEqual(wanted.env)
    expect(unknownFlagLine(NO_MAGLEV_FLAG, '26.0.0')).toBe(
      'switchboard: Node.js 26.0.0 does not know the V8 flag --no-maglev; starting without it\n',
    )
  })
})
