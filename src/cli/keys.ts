/** `rotate-keys`: re-encrypt every stored secret under a new ENCRYPTION_KEY. */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import type { Deps } from '../deps.js'
import { stageSecretsFile } from '../lib/secrets.js'
import type { EncryptedStore } from '../modules/keys/rewrap.js'
import { reencryptSecrets } from '../modules/keys/service.js'
import { mfaSecrets } from '../modules/mfa/key-rotation.js'
import { oidcSecrets } from '../modules/oidc/key-rotation.js'
import { invitationTokens } from '../modules/organizations/key-rotation.js'
import { settingsSecrets } from '../modules/settings/key-rotation.js'
import { readLine, withDeps, type CliIo, type Command } from './io.js'

/**
 * Every store of ciphertext in the database, registered with the rotation (modules/keys knows
 * none): a module that adds encrypted columns defines its store and adds it here.
 */
export const ENCRYPTED_STORES: readonly EncryptedStore[] = [
  mfaSecrets,
  settingsSecrets,
  oidcSecrets,
  invitationTokens,
]

interface Rotation {
  newKey: Buffer
  /** Made here (not read from stdin): then it is printed when it belongs in the environment. */
  generated: boolean
  /** Also replace a generated JWT secret (every session ends). */
  jwtSecret: boolean
}

export const rotateKeys: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: { 'new-key-stdin': { type: 'boolean' }, 'jwt-secret': { type: 'boolean' } },
  })
  let newKey = randomBytes(32)
  if (values['new-key-stdin']) {
    const line = (await readLine(io)).trim()
    if (!/^[0-9a-fA-F]{64}$/.test(line)) {
      io.stderr.write('switchboard: the new key must be 64 hex characters (32 bytes)\n')
      return 2
    }
    newKey = Buffer.from(line, 'hex')
  }
  const rotation = {
    newKey,
    generated: !values['new-key-stdin'],
    jwtSecret: Boolean(values['jwt-secret']),
  }
  return withDeps(io, (deps) => rotateWith(deps, io, rotation))
}

/**
 * Re-encrypts the stored secrets, then puts the new key where the running configuration keeps it:
 * secrets.json is swapped only after the database committed; a key from the environment is printed
 * (when generated) for the operator to install.
 */
async function rotateWith(deps: Deps, io: CliIo, rotation: Rotation): Promise<number> {
  const keyInFile = deps.config.encryptionKey === undefined && deps.secrets.file !== null
  const jwtInFile = deps.config.jwtSecret === undefined && deps.secrets.file !== null
  if (rotation.jwtSecret && !jwtInFile) {
    io.stderr.write(
      'switchboard: JWT_SECRET comes from the environment; change it there (every session ends)\n',
    )
    return 2
  }
  const staged =
    keyInFile || rotation.jwtSecret
      ? stageSecretsFile(deps.secrets.file!, {
          jwtSecret: rotation.jwtSecret
            ? randomBytes(48).toString('base64url')
            : deps.secrets.jwtSecret,
          encryptionKey: keyInFile ? rotation.newKey : deps.secrets.encryptionKey,
        })
      : null
  let counts: Record<string, number>
  try {
    counts = await reencryptSecrets(deps, rotation.newKey, ENCRYPTED_STORES)
  } catch (error) {
    staged?.abort()
    throw error
  }
  staged?.commit()
  reportRotation(io, counts, { ...rotation, keyFile: keyInFile ? deps.secrets.file : null })
  return 0
}

function reportRotation(
  io: CliIo,
  counts: Record<string, number>,
  rotation: Rotation & { keyFile: string | null },
): void {
  const reencrypted = Object.entries(counts)
    .map(([name, n]) => `${name}=${n}`)
    .join(', ')
  io.stdout.write(`re-encrypted: ${reencrypted || 'nothing'}\n`)
  if (rotation.keyFile !== null)
    io.stdout.write(`the new key is in ${rotation.keyFile}; restart every instance\n`)
  else if (rotation.generated)
    io.stdout.write(
      `set ENCRYPTION_KEY=${rotation.newKey.toString('hex')} on every instance and restart them\n`,
    )
  else io.stdout.write('set ENCRYPTION_KEY to the new key on every instance and restart them\n')
  if (rotation.jwtSecret) io.stdout.write('the JWT secret was replaced: every session ends\n')
}
