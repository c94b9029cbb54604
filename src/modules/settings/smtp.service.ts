/** The SMTP section (docs/API.md#settings): sanitized reads, partial updates, a real test mail. */
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import { hostLiteralProblem } from '../../lib/outbound.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { smtpPolicy } from '../mail/mailer.js'
import { sendMail } from '../mail/service.js'
import { normalizeEmail } from '../users/service.js'
import { assertAdministratorProof } from '../admin/reauth.js'
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

const PASSWORD_AGAIN = 'must be sent again (or null to clear it) when host or port change'

/** Whether the patch moves the server (host, port): the stored password does not follow. */
function movesServer(patch: Pick<UpdateSmtpBody, 'host' | 'port'>, current: StoredSmtp): boolean {
  return (
    (patch.host !== undefined && patch.host !== null && patch.host !== current.host) ||
    (patch.port !== undefined && patch.port !== current.port)
  )
}

/** Whether the patch changes the server (host, port) or the sender address. */
function movesMail(patch: Omit<UpdateSmtpBody, 'current_password' | 'code'>, current: StoredSmtp) {
  const from = patch.from_address && normalizeEmail(patch.from_address)
  return (
    (patch.host !== undefined && patch.host !== current.host) ||
    (patch.port !== undefined && patch.port !== current.port) ||
    (patch.from_address !== undefined && from !== current.from_address)
  )
}

export async function getSmtpSettings(deps: Deps): Promise<SmtpView> {
  return toSmtpView((await readSection(deps, SMTP_SECTION)).stored)
}

export async function updateSmtpSettings(
  deps: Deps,
  caller: Caller,
  body: UpdateSmtpBody,
  ctx: RequestContext,
): Promise<SmtpView> {
  const { current_password, code, ...patch } = body
  const { password, from_address, ...fields } = patch
  // Where mail goes (reset links, invitations) is credential-equivalent: the administrator's
  // session and proof, and a mail to every other administrator (trust_changed).
  const before = (await readSection(deps, SMTP_SECTION)).stored
  const trustChanged = movesMail(patch, before)
  if (trustChanged) {
    // The cheap refusal first (checked again below, with the row locked).
    if (movesServer(patch, before) && before.password_encrypted !== null && password === undefined)
      throw invalidField('password', PASSWORD_AGAIN)
    await assertAdministratorProof(deps, caller, { current_password, code })
  }
  const change = {
    actor: caller.user,
    ctx,
    action: 'smtp.update',
    fields: Object.keys(patch),
    ...(trustChanged && { metadata: { trust_changed: true } }),
  }
  // A literal address is judged at once; a name is judged each time it is resolved
  // (mail/mailer.ts).
  const literal =
    patch.host === undefined || patch.host === null
      ? null
      : hostLiteralProblem(patch.host, smtpPolicy(deps.config.outbound))
  if (literal !== null) throw invalidField('host', literal)
  const stored = await updateSection(deps, SMTP_SECTION, change, (current) => {
    // The stored password never follows the server to a new host or port.
    if (
      movesServer(fields, current) &&
      current.password_encrypted !== null &&
      password === undefined
    )
      throw invalidField('password', PASSWORD_AGAIN)
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
