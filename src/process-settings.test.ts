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
  knownV8Flags,
  processSettings,
  unknownFlagLine,
  v8FlagNames,
  withKnownFlags,
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

const V8_OPTIONS = `SSE3=1 SSSE3=1 …
Options:
  --maglev (enable the maglev optimizing compiler)
        type: bool  default: --maglev
  --max-semi-space-size (max size of a semi-space (in MBytes), the new space consists of two semi-spaces)
        type: size_t  default: --max-semi-space-size=0
  --heap-growing-percent (specifies heap growing factor as (1 + heap_growing_percent/100))
        type: int  default: --heap-growing-percent=0
  --allocation-site-pretenuring (pretenure with allocation sites)
        type: bool  default: --allocation-site-pretenuring
  --expose-gc (expose gc extension)
        type: bool  default: --no-expose-gc
`

describe('the V8 flags, checked against the running Node before the restart', () => {
  it('reads the flag names of `node --v8-options`', () => {
    expect(v8FlagNames(V8_OPTIONS)).toEqual(
      new Set([
        'maglev',
        'max-semi-space-size',
        'heap-growing-percent',
        'allocation-site-pretenuring',
        'expose-gc',
      ]),
    )
  })

  it('keeps every flag a Node knows, whether it lists them with dashes or underscores', () => {
    const wanted = processSettings(['--enable-source-maps'], {})!
    for (const listing of [V8_OPTIONS, V8_OPTIONS.replace(/(?<=[a-z])-(?=[a-z])/g, '_')]) {
      const { settings, unknown } = withKnownFlags(
        wanted,
        ['--enable-source-maps'],
        v8FlagNames(listing),
      )
      expect(unknown).toEqual([])
      expect(settings).toEqual(wanted)
    }
  })

  it('leaves out a flag this Node does not know, and only that one; the options given stay', () => {
    const wanted = processSettings(['--enable-source-maps'], {})!
    const withoutMaglev = v8FlagNames(V8_OPTIONS.replace(/^ {2}--maglev .*$/m, ''))
    const { settings, unknown } = withKnownFlags(wanted, ['--enable-source-maps'], withoutMaglev)
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

  it('leaves every flag out when the Node cannot be asked', () => {
    const wanted = processSettings([], {})!
    const { settings, unknown } = withKnownFlags(wanted, [], knownV8Flags('/nonexistent/node'))
    expect(unknown).toEqual(wanted.execArgv)
    expect(settings.execArgv).toEqual([])
  })

  it('finds every flag the service adds in the running Node', () => {
    const wanted = processSettings([], {})!
    expect(withKnownFlags(wanted, [], knownV8Flags(process.execPath)).unknown).toEqual([])
  })
})
