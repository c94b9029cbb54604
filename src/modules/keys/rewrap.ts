/**
 * Re-encryption of the secrets stored at rest under a new ENCRYPTION_KEY. Each module that stores
 * ciphertext contributes a store that rewraps its own rows; rotation runs them all in one
 * transaction, so the database never holds a mix of keys.
 */
import type { Executor } from '../../db/schema.js'
import { decrypt, encrypt } from '../../lib/crypto.js'

/** Decrypts with the old key and encrypts with the new one, keeping the context (AAD). */
export type Rewrap = (ciphertext: string, context: string) => string

export interface EncryptedStore {
  name: string
  /** Rewraps every secret of the store; returns how many it rewrote. */
  reencrypt(tx: Executor, rewrap: Rewrap): Promise<number>
}

export function rewrapWith(from: Buffer, to: Buffer): Rewrap {
  return (ciphertext, context) => encrypt(to, decrypt(from, ciphertext, context), context)
}
