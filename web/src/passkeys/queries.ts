/**
 * The caller's passkeys: read by the security page, and by the pages that say whether a second
 * factor is on.
 */
import { client, unwrap } from '../api/client'

export const passkeysQuery = {
  queryKey: ['passkeys'],
  queryFn: () => unwrap(client.GET('/api/auth/passkeys')),
}
