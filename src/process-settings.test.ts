import { describe, expect, it } from 'vitest'
import { EXPOSE_GC_FLAG, MALLOC_ARENA_MAX, NO_MAGLEV_FLAG, SEMI_SPACE_FLAG, processSettings } from './process-settings.js'

describe('process settings of the service (server.ts)', () => {
  it('adds the semi-space size, no Maglev, the collection after start-up and the malloc arena limit, keeping the options and environment given', () => {
    expect(processSettings(['--enable-source-maps'], { PATH: '/bin', UNSET: undefined })).toEqual({
      execArgv: ['--enable-source-maps', SEMI_SPACE_FLAG, NO_MAGLEV_FLAG, EXPOSE_GC_FLAG],
      env: { PATH: '/bin', MALLOC_ARENA_MAX },
    })
  })

  it('leaves an operator-chosen Maglev setting alone', () => {
    expect(processSettings(['--maglev'], {})?.execArgv).toEqual(['--maglev', SEMI_SPACE_FLAG, EXPOSE_GC_FLAG])
  })

  it('leaves an operator-chosen malloc arena limit alone', () => {
    expect(processSettings([], { MALLOC_ARENA_MAX: '8' })?.env.MALLOC_ARENA_MAX).toBe('8')
  })

  it('is null once the process runs with a semi-space size, from the command line or NODE_OPTIONS (no restart loop)', () => {
    expect(processSettings([SEMI_SPACE_FLAG], {})).toBeNull()
    expect(processSettings(['--max-semi-space-size=8'], {})).toBeNull()
    expect(processSettings([], { NODE_OPTIONS: '--max-old-space-size=512 --max-semi-space-size=4' })).toBeNull()
  })
})
