/**
 * Caps on the mail that users make the instance send to addresses of their choosing — invitations,
 * their resends and email-change links — so that no account can use the
 * instance as a mail relay:
 *
 * - per recipient: at most 3 such mails per address in 24 hours, whoever asks and from whichever
 *   organization (a fourth invitation is 429 RECIPIENT_MAIL_LIMIT);
 * - per instance: at most MAIL_HOURLY_LIMIT of them per hour in all (429 INSTANCE_MAIL_LIMIT).
 *
 * Both are fixed-window counters of the attempt-budget store, shared through Redis when REDIS_URL
 * is set, and taken before anything is stored or sent — so of a burst, exactly as many pass as the
 * caps allow. A mail that is then not sent (the request failed, SMTP refused it) is given back.
 * Mail to the account's own, verified address (security notices) is not capped here: nobody
 * chooses its recipient.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Budget } from '../../lib/attempt-budget.js'

export const MAILS_PER_RECIPIENT: Budget = {
  name: 'mail:recipient',
  limit: 3,
  windowSeconds: 24 * 60 * 60,
}

function instanceBudget(deps: Deps): Budget {
  return { name: 'mail:instance', limit: deps.config.mailHourlyLimit, windowSeconds: 60 * 60 }
}

/** The 429 answers of a route that sends such a mail (OpenAPI). */
export const MAIL_CAPS_429 =
  'RATE_LIMITED: 10 invitations per 15 minutes; RECIPIENT_MAIL_LIMIT: 3 mails per address per 24 hours, across organizations; ' +
  'INSTANCE_MAIL_LIMIT: the hourly cap on mail users trigger (MAIL_HOURLY_LIMIT)'

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/**
 * One user-triggered mail to `recipient` (normalized): taken on both caps, or refused with its 429.
 */
export async function reserveUserMail(
  deps: Deps,
  recipient: string,
): Promise<{ release(): Promise<void> }> {
  const perRecipient = await deps.budgets.reserve([
    { budget: MAILS_PER_RECIPIENT, subject: recipient },
  ])
  if (!perRecipient.granted)
    throw new AppError('RECIPIENT_MAIL_LIMIT', { retryAfter: seconds(perRecipient.resetInMs) })
  const instance = await deps.budgets.reserve([
    { budget: instanceBudget(deps), subject: 'instance' },
  ])
  if (!instance.granted) {
    await perRecipient.release()
    throw new AppError('INSTANCE_MAIL_LIMIT', { retryAfter: seconds(instance.resetInMs) })
  }
  return {
    async release() {
      await Promise.all([perRecipient.release(), instance.release()])
    },
  }
}

/**
 * Runs `send` (everything from storing to mailing) under one reserved mail; gives it back when
 * `send` fails.
 */
export async function withUserMail<T>(
  deps: Deps,
  recipient: string,
  send: () => Promise<T>,
): Promise<T> {
  const reserved = await reserveUserMail(deps, recipient)
  try {
    return await send()
  } catch (error) {
    await reserved.release()
    throw error
  }
}
