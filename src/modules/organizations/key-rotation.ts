import type { Executor } from '../../db/schema.js'
import type { EncryptedStore } from '../keys/rewrap.js'
import { lockInvitationTokens, setInvitationTokenCiphertext } from './invitations.repo.js'
import { invitationTokenContext } from './invitations.service.js'

/** The pending invitations' tokens (links owners and admins can copy). */
export const invitationTokens: EncryptedStore = {
  name: 'invitation_tokens',
  async reencrypt(tx: Executor, rewrap) {
    const rows = await lockInvitationTokens(tx)
    for (const row of rows)
      await setInvitationTokenCiphertext(
        tx,
        row.id,
        rewrap(row.token_encrypted, invitationTokenContext(row.id)),
      )
    return rows.length
  },
}
