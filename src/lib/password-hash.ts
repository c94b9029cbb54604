/**
 * Password (and other low-entropy secret) hashing with argon2id — OWASP's first choice, with
 * its minimum parameters (m = 19 MiB, t = 2, p = 1) as the configured default.
 */
import { hash, verify } from '@node-rs/argon2'

export interface PasswordHashParams {
  memoryCost: number
  timeCost: number
  parallelism: number
}

export interface PasswordHasher {
  hash(secret: string): Promise<string>
  /** False for a wrong secret and for a stored value that is not an argon2 hash. */
  verify(stored: string, secret: string): Promise<boolean>
  /**
   * Spends the same time as verify() against a real hash. Called when there is no account (or no
   * password) so that response timing does not reveal which emails are registered.
   */
  verifyDummy(secret: string): Promise<void>
}

export function createPasswordHasher(params: PasswordHashParams): PasswordHasher {
  // @node-rs/argon2 defaults to argon2id; only the costs are ours to set.
  const options = { memoryCost: params.memoryCost, timeCost: params.timeCost, parallelism: params.parallelism }
  let dummy: Promise<string> | undefined
  const hasher: PasswordHasher = {
    hash: (secret) => hash(secret, options),
    async verify(stored, secret) {
      try {
        return await verify(stored, secret)
      } catch {
        return false
      }
    },
    async verifyDummy(secret) {
      dummy ??= hash('switchboard-timing-equaliser', options)
      await hasher.verify(await dummy, secret)
    },
  }
  return hasher
}
