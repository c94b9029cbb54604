import { v7 as uuidv7 } from 'uuid'
import { randomString } from './random.js'

/**
 * New resource ids are UUIDv7 (RFC 9562): opaque to clients, but time-ordered, so inserts append
 * to the primary-key index instead of scattering across it.
 */
export function newId(): string {
  return uuidv7()
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/**
 * The immutable, public `user_key` of docs/API.md#the-user-object: 8 base58 characters (≈47 bits).
 */
export function newUserKey(): string {
  return randomString(BASE58, 8)
}
