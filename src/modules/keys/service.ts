/**
 * `switchboard rotate-keys`: every secret stored at rest is decrypted with the current
 * ENCRYPTION_KEY and encrypted again with a new one, in one transaction (all or nothing).
 */
import type { Deps } from '../../deps.js'
import { mfaSecrets } from '../mfa/key-rotation.js'
import { oidcSecrets } from '../oidc/key-rotation.js'
import { invitationTokens } from '../organizations/key-rotation.js'
import { settingsSecrets } from '../settings/key-rotation.js'
import { recordAudit } from '../audit/service.js'
import { rewrapWith, type EncryptedStore } from './rewrap.js'

/**
 * Every store of ciphertext in the database. A module that adds encrypted columns adds its store
 * here.
 */
export const ENCRYPTED_STORES: EncryptedStore[] = [
  mfaSecrets,
  settingsSecrets,
  oidcSecrets,
  invitationTokens,
]

export async function reencryptSecrets(
  deps: Deps,
  newKey: Buffer,
): Promise<Record<string, number>> {
  const rewrap = rewrapWith(deps.secrets.encryptionKey, newKey)
  return deps.db.transaction().execute(async (tx) => {
    const counts: Record<string, number> = {}
    for (const store of ENCRYPTED_STORES) counts[store.name] = await store.reencrypt(tx, rewrap)
    await recordAudit(
      tx,
      deps.clock,
      { ip: null, userAgent: null },
      {
        action: 'instance.encryption_key_rotate',
        actor: null,
        metadata: { via: 'cli', rewrapped: counts },
      },
    )
    return counts
  })
}
