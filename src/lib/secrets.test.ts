import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from '../../test/helpers/database.js'
import { resolveSecrets } from './secrets.js'

describe('server secrets', () => {
  it('are generated on first start, kept with mode 0600, and reused afterwards', () => {
    const dataDir = path.join(makeTempDir(), 'data')
    const first = resolveSecrets({ dataDir })
    expect(first.file).toBe(path.join(dataDir, 'secrets.json'))
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32)
    expect(first.encryptionKey).toHaveLength(32)
    expect(fs.statSync(first.file!).mode & 0o777).toBe(0o600)
    const second = resolveSecrets({ dataDir })
    expect(second.jwtSecret).toBe(first.jwtSecret)
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true)
    expect(fs.readdirSync(dataDir)).toEqual(['secrets.json'])
  })

  it('come from configuration when given, without touching the data directory', () => {
    const dataDir = path.join(makeTempDir(), 'data')
    const secrets = resolveSecrets({ dataDir, jwtSecret: 'j'.repeat(40), encryptionKey: Buffer.alloc(32, 7) })
    expect(secrets).toMatchObject({ jwtSecret: 'j'.repeat(40), file: null })
    expect(fs.existsSync(dataDir)).toBe(false)
  })

  it('refuse a corrupted secrets file instead of silently replacing it', () => {
    const dataDir = makeTempDir()
    fs.writeFileSync(path.join(dataDir, 'secrets.json'), '{"jwt_secret": "short"}')
    expect(() => resolveSecrets({ dataDir })).toThrow(/not a valid secrets file/)
  })
})
