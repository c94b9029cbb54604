import { describe, expect, it } from 'vitest'
import { unsupportedNodeMessage } from './node-version.js'

describe('supported Node.js lines (package.json engines: ^22.16 || ^24; newer lines start)', () => {
  it.each(['24.0.0', '24.21.0', 'v24.21.0', '25.1.0', '22.16.0', '22.20.1'])(
    'accepts %s',
    (version) => {
      expect(unsupportedNodeMessage(version)).toBeNull()
    },
  )

  it.each(['20.19.0', '22.11.0', '22.15.1', '23.11.0', '18.20.8', 'v20.20.2'])(
    'refuses %s with one line naming the versions it needs',
    (version) => {
      const message = unsupportedNodeMessage(version)!
      expect(message).toMatch(
        /^switchboard: needs Node\.js 24 LTS \(recommended\) or 22 LTS \(22\.16 or later\); this is Node\.js [\d.]+\n$/,
      )
      expect(message).toContain(version.replace(/^v/, ''))
    },
  )
})
