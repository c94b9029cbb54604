import type { UserRecord } from '../users/repo.js'

/** Who is making the request, as established once per request by the authentication hook. */
export interface Caller {
  user: UserRecord
  /** `session`: an interactive sign-in (access JWT); `api_token`: a personal API token. */
  credential: 'session' | 'api_token'
  sessionId: string | null
  tokenId: string | null
}
