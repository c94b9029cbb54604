import type { Executor } from '../../db/schema.js'
import type { EncryptedStore } from '../keys/rewrap.js'
import { lockClientSecrets, setClientSecret } from './providers.repo.js'
import { clientSecretContext } from './providers.service.js'

/** The identity providers' client secrets. */
export const oidcSecrets: EncryptedStore = {
  name: 'oidc_client_secrets',
  async reencrypt(tx: Executor, rewrap) {
    const rows = await lockClientSecrets(tx)
    for (const row of rows)
      await setClientSecret(
        tx,
        row.id,
        rewrap(row.client_secret_encrypted, clientSecretContext(row.id)),
      )
    return rows.length
  },
}
