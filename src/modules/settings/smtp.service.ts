/** The SMTP section (docs/API.md#settings): sanitized reads, partial updates, a real test mail. */
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import { hostLiteralProblem } from '../../lib/outbound.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { smtpPolicy } from '../mail/mailer.js'
import { sendMail } from '../mail/service.js'
import { normalizeEmail } from '../users/service.js'
import type { SmtpTestBody, SmtpView, UpdateSmtpBody } from './schemas.js'
import {
  assertUsableWhenEnabled,
  readSection,
  sealSecret,
  SMTP_SECTION,
  toSmtpView,
  updateSection,
  type StoredSmtp,
} from './sections.js'

export async function getSmtpSettings(deps: Deps): Promise<SmtpView> {
  return toSmtpView((await readSection(deps, SMTP_SECTION)).stored)
}

export async function updateSmtpSettings(
  deps: Deps,
  caller: Caller,
  patch: UpdateSmtpBody,
  ctx: RequestContext,
): Promise<SmtpView> {
  const { password, from_address, ...fields } = patch
  const change = { actor: caller.user, ctx, action: 'smtp.update', fields: Object.keys(patch) }
  // A literal address is judged at once; a name is judged each time it is resolved
  // (mail/mailer.ts).
  const literal =
    patch.host === undefined || patch.host === null
      ? null
      : hostLiteralProblem(patch.host, smtpPolicy(deps.config.outbound))
  if (literal !== null) throw invalidField('host', literal)
  const stored = await updateSection(deps, SMTP_SECTION, change, (current) => {
    // The stored password never follows the server to a new host or port.
    const moved =
      (fields.host !== undefined && fields.host !== null && fields.host !== current.host) ||
      (fields.port !== undefined && fields.port !== current.port)
    if (moved && current.password_encrypted !== null && password === undefined) {
      throw invalidField(
        'password',
        'must be sent again (or null to clear it) when host or port change',
      )
    }
    const next: StoredSmtp = {
      ...current,
      ...fields,
      from_address:
        from_address === undefined
          ? current.from_address
          : from_address && normalizeEmail(from_address),
      password_encrypted: sealSecret(deps, SMTP_SECTION, current.password_encrypted, password),
    }
    // Mail needs a server to talk to and a sender address.
    assertUsableWhenEnabled(
      next.enabled,
      { host: next.host, from_address: next.from_address },
      'SMTP',
    )
    return next
  })
  return toSmtpView(stored)
}

/**
 * Sends a test message (to the caller unless `to` says otherwise) and audits the attempt, delivered
 * or not. 503 when SMTP is not configured and enabled; 502 with the server's reply when it fails.
 */
export async function sendSmtpTest(
  deps: Deps,
  caller: Caller,
  body: SmtpTestBody,
  ctx: RequestContext,
): Promise<{ delivered: true; message_id: string }> {
  const to = body.to === undefined ? caller.user.email : normalizeEmail(body.to)
  const audit = (delivered: boolean) =>
    recordAudit(deps.db, deps.clock, ctx, {
      action: 'smtp.test',
      actor: caller.user,
      target: { type: 'setting', id: SMTP_SECTION.key },
      metadata: { to, delivered },
    })
  try {
    const { messageId } = await sendMail(deps, {
      to,
      subject: 'Switchboard: SMTP test',
      text: `This is a test message from Switchboard, sent by ${caller.user.email} at ${deps.clock.now().toISOString()}.\n\nIf you can read it, outgoing mail works.\n`,
    })
    await audit(true)
    return { delivered: true, message_id: messageId }
  } catch (error) {
    if (error instanceof AppError && error.reason === 'UPSTREAM_FAILED') await audit(false)
    throw error
  }
}
