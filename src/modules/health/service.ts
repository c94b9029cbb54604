import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'

const READINESS_TIMEOUT_MS = 2000

/** Resolves when the database answers within the timeout; a load balancer must not wait longer. */
export async function checkReadiness(deps: Deps): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), READINESS_TIMEOUT_MS)
  })
  try {
    await Promise.race([deps.database.ping(), timeout])
  } catch {
    throw new AppError('SERVICE_UNAVAILABLE', { message: 'The database is not answering.' })
  } finally {
    clearTimeout(timer)
  }
}
