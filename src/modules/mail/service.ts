/**
 * Sending mail with the instance's SMTP settings. Callers send after the transaction that decided
 * the mail has committed (docs/ARCHITECTURE.md, convention 8), so a slow or failing server never
 * holds a lock.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { openSecret, readSection, SMTP_SECTION } from '../settings/sections.js'
import {
  MailDeliveryError,
  verifySmtpConnection,
  type OutgoingMail,
  type SmtpConnection,
} from './mailer.js'

export interface MailMessage {
  to: string
  subject: string
  text: string
}

interface MailSetup {
  connection: SmtpConnection
  from: OutgoingMail['from']
}

/**
 * The SMTP settings ready for use; 503 NOT_CONFIGURED unless SMTP is enabled with a host and
 * sender.
 */
async function loadMailSetup(deps: Deps): Promise<MailSetup> {
  const { stored: smtp } = await readSection(deps, SMTP_SECTION)
  if (!smtp.enabled || smtp.host === null || smtp.from_address === null) {
    throw new AppError('NOT_CONFIGURED', { message: 'Outgoing mail (SMTP) is not configured.' })
  }
  return {
    connection: {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      username: smtp.username,
      password:
        smtp.password_encrypted === null
          ? null
          : openSecret(deps, SMTP_SECTION, smtp.password_encrypted, 'SMTP password'),
      plaintextAuthOnLoopback: smtp.plaintext_auth_on_loopback,
    },
    from: { address: smtp.from_address, name: smtp.from_name },
  }
}

/** For operations that must refuse up front, before changing anything, when mail cannot be sent. */
export async function assertMailConfigured(deps: Deps): Promise<void> {
  await loadMailSetup(deps)
}

/** Whether mail can be sent now (SMTP enabled with a host and a sender). */
export async function isMailConfigured(deps: Deps): Promise<boolean> {
  try {
    await loadMailSetup(deps)
    return true
  } catch (error) {
    if (error instanceof AppError && error.reason === 'NOT_CONFIGURED') return false
    throw error
  }
}

/**
 * Checks the configured SMTP server without sending (`switchboard doctor`): null when SMTP is not
 * configured, else where it connected; a MailDeliveryError names the stage that failed.
 */
export async function verifyMailSetup(
  deps: Deps,
): Promise<{ host: string; port: number; tls: string; authenticated: boolean } | null> {
  let setup: MailSetup
  try {
    setup = await loadMailSetup(deps)
  } catch (error) {
    if (error instanceof AppError && error.reason === 'NOT_CONFIGURED') return null
    throw error
  }
  await verifySmtpConnection(setup.connection, { policy: deps.config.outbound })
  const { host, port, secure, username, plaintextAuthOnLoopback } = setup.connection
  // As the transport negotiates it (mailer.ts): credentials require STARTTLS unless cleared for
  // loopback.
  const tls = secure
    ? 'TLS'
    : username !== null && plaintextAuthOnLoopback !== true
      ? 'STARTTLS'
      : 'STARTTLS if offered'
  return { host, port, tls, authenticated: username !== null }
}

/**
 * Sends one plain-text message. SMTP not configured → 503 NOT_CONFIGURED; any SMTP failure → 502
 * UPSTREAM_FAILED whose message says which stage failed (never the server's text).
 */
export async function sendMail(deps: Deps, message: MailMessage): Promise<{ messageId: string }> {
  const { connection, from } = await loadMailSetup(deps)
  try {
    return await deps.mailer.send(connection, { from, ...message })
  } catch (error) {
    if (error instanceof MailDeliveryError)
      throw new AppError('UPSTREAM_FAILED', { message: error.message })
    throw error
  }
}
