import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from '../../test/helpers/database.js'
import { generateSigningKey, isSigningKey } from './signed-note.js'
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
    expect(isSigningKey(first.auditSigningKey)).toBe(true)
    expect(second.auditSigningKey).toBe(first.auditSigningKey)
  })

  it('add an audit signing key to a file written before it, once, keeping the other secrets', () => {
    const dataDir = makeTempDir()
    const file = path.join(dataDir, 'secrets.json')
    fs.writeFileSync(
      file,
      JSON.stringify({ jwt_secret: 'k'.repeat(48), encryption_key: 'ab'.repeat(32) }),
      { mode: 0o600 },
    )
    const first = resolveSecrets({ dataDir })
    expect(first.jwtSecret).toBe('k'.repeat(48))
    expect(isSigningKey(first.auditSigningKey)).toBe(true)
    expect(resolveSecrets({ dataDir }).auditSigningKey).toBe(first.auditSigningKey)
    expect(fs.readdirSync(dataDir)).toEqual(['secrets.json'])
  })

  it('come from configuration when given, without touching the data directory', () => {
    const dataDir = path.join(makeTempDir(), 'data')
    const secrets = resolveSecrets({
      dataDir,
      jwtSecret: 'j'.repeat(40),
      encryptionKey: Buffer.alloc(32, 7),
      auditSigningKey: generateSigningKey(),
    })
    expect(secrets).toMatchObject({ jwtSecret: 'j'.repeat(40), file: null })
    expect(fs.existsSync(dataDir)).toBe(false)
  })

  it('refuse a corrupted secrets file instead of silently replacing it', () => {
    const dataDir = makeTempDir()
    fs.writeFileSync(path.join(dataDir, 'secrets.json'), '{"jwt_secret": "short"}')
    expect(() => resolveSecrets({ dataDir })).toThrow(/not a valid secrets file/)
  })
})
