/**
 * `switchboard rotate-keys`: every secret stored at rest is decrypted with the current
 * ENCRYPTION_KEY and encrypted again with a new one, in one transaction (all or nothing).
 *
 * This module knows no store of ciphertext: each module with encrypted columns defines its own
 * (an EncryptedStore, in its key-rotation.ts) and the command registers them all (cli/keys.ts
 * ENCRYPTED_STORES), as an application lists its plugins.
 */
import type { Deps } from '../../deps.js'
import { recordAudit } from '../audit/service.js'
import { rewrapWith, type EncryptedStore } from './rewrap.js'

export async function reencryptSecrets(
  deps: Deps,
  newKey: Buffer,
  stores: readonly EncryptedStore[],
): Promise<Record<string, number>> {
  const rewrap = rewrapWith(deps.secrets.encryptionKey, newKey)
  return deps.db.transaction().execute(async (tx) => {
    const counts: Record<string, number> = {}
    for (const store of stores) counts[store.name] = await store.reencrypt(tx, rewrap)
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
