import type { Executor } from '../../db/schema.js'
import type { EncryptedStore } from '../keys/rewrap.js'
import { pendingSecretContext } from './service.js'
import { totpSecretContext } from './second-factor.js'

/** TOTP secrets, active and pending. */
export const mfaSecrets: EncryptedStore = {
  name: 'totp_secrets',
  async reencrypt(tx: Executor, rewrap) {
    let count = 0
    for (const row of await tx
      .selectFrom('mfa_totp')
      .select(['user_id', 'secret_encrypted'])
      .forUpdate()
      .execute()) {
      const secret_encrypted = rewrap(row.secret_encrypted, totpSecretContext(row.user_id))
      await tx
        .updateTable('mfa_totp')
        .set({ secret_encrypted })
        .where('user_id', '=', row.user_id)
        .execute()
      count += 1
    }
    for (const row of await tx
      .selectFrom('mfa_pending')
      .select(['user_id', 'secret_encrypted'])
      .forUpdate()
      .execute()) {
      const secret_encrypted = rewrap(row.secret_encrypted, pendingSecretContext(row.user_id))
      await tx
        .updateTable('mfa_pending')
        .set({ secret_encrypted })
        .where('user_id', '=', row.user_id)
        .execute()
      count += 1
    }
    return count
  },
}
