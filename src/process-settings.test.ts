import { describe, expect, it } from 'vitest'
import { MALLOC_ARENA_MAX, SEMI_SPACE_FLAG, processSettings } from './process-settings.js'

describe('process settings of the service (server.ts)', () => {
  it('adds the semi-space size and the malloc arena limit, keeping the options and environment given', () => {
    expect(processSettings(['--enable-source-maps'], { PATH: '/bin', UNSET: undefined })).toEqual({
      execArgv: ['--enable-source-maps', SEMI_SPACE_FLAG],
      env: { PATH: '/bin', MALLOC_ARENA_MAX },
    })
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
