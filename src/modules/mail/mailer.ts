/**
 * The mail adapter: one message through one SMTP server, with nodemailer. A fresh connection per
 * message keeps it simple and always uses the current settings (mail here is rare: tests,
 * verifications, invitations).
 *
 * Credentials never travel in clear — with a username, the connection is TLS from the
 * first byte (`secure`) or STARTTLS is required before AUTH, unless the server is this machine's
 * loopback and the settings say so explicitly. The host must resolve to an address the outbound
 * policy allows (lib/outbound.ts), and the connection goes to that very address. Failures say
 * which stage failed (connection, TLS, authentication, sender/recipient, message) with the reply
 * code, never the peer's text: a port that is not an SMTP server must not be readable through it.
 */
import { createRequire } from 'node:module'
import type Nodemailer from 'nodemailer'
import type { Transporter } from 'nodemailer'
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js'

// Loaded by the first message: most instances send mail rarely or never
// (docs/decisions/0002-start-up-footprint.md).
const require = createRequire(import.meta.url)
let nodemailer: typeof Nodemailer | undefined
import { isIP } from 'node:net'
import {
  isLoopbackHost,
  OutboundRefusedError,
  resolveAllowed,
  type OutboundPolicy,
} from '../../lib/outbound.js'

export interface SmtpConnection {
  host: string
  port: number
  /** TLS from the first byte; otherwise STARTTLS — required when there are credentials. */
  secure: boolean
  username: string | null
  password: string | null
  /** Credentials may go without TLS — but only to a loopback host (an explicit SMTP setting). */
  plaintextAuthOnLoopback?: boolean
}

export interface OutgoingMail {
  from: { address: string; name: string | null }
  to: string
  subject: string
  text: string
}

export interface Mailer {
  send(connection: SmtpConnection, mail: OutgoingMail): Promise<{ messageId: string }>
}

export class MailDeliveryError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MailDeliveryError'
  }
}

export const DEFAULT_SMTP_TIMEOUT_MS = 10_000

/**
 * The outbound policy for SMTP: the operator's, plus loopback — a relay on this machine
 * (Postfix, an MTA sidecar) is how a self-hosted instance usually mails. Private ranges still need
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS; link-local and metadata addresses stay refused.
 */
export function smtpPolicy(policy: OutboundPolicy): OutboundPolicy {
  return { ...policy, allowLoopback: true }
}

const SYSTEM_ERROR =
  /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EPIPE|ECONNABORTED)\b/

/**
 * What an administrator's SMTP test (and any mail sent on a request's behalf) says for every
 * failure before an SMTP server answers: a refused connection, no answer in time, another protocol.
 * Worded alike so the test cannot probe which local ports are open (a closed port refuses, an open
 * one times out or speaks something else). `switchboard doctor`, run by the operator, names the
 * stage.
 */
export const SMTP_UNREACHABLE =
  'No SMTP server answered at this host and port (no connection, no answer in time, or not SMTP).'

const CONNECTION_STAGE = new Set(['ETIMEDOUT', 'ECONNECTION', 'ESOCKET', 'EPROTOCOL'])

/**
 * One line saying which stage failed, with the reply code or system error code — never the peer's
 * text. Without `detailed`, every connection-stage failure is SMTP_UNREACHABLE.
 */
export function describeSmtpFailure(error: unknown, detailed = false): string {
  const e = error as { code?: string; responseCode?: unknown; message?: string; command?: string }
  const reply = typeof e.responseCode === 'number' ? ` (reply code ${e.responseCode})` : ''
  const system = SYSTEM_ERROR.exec(e.message ?? '')?.[1]
  if (!detailed && CONNECTION_STAGE.has(e.code ?? '')) return SMTP_UNREACHABLE
  switch (e.code) {
    case 'ETIMEDOUT':
      return 'The SMTP server did not answer in time.'
    case 'EDNS':
      return 'The SMTP host name could not be resolved.'
    case 'ECONNECTION':
    case 'ESOCKET':
      return `Could not connect to the SMTP server${system === undefined ? '' : ` (${system})`}.`
    case 'ETLS':
      return 'TLS could not be established with the SMTP server: it does not offer STARTTLS or the handshake failed. Credentials are never sent without TLS.'
    case 'EAUTH':
      return `The SMTP server refused the authentication${reply}.`
    case 'EENVELOPE':
      return `The SMTP server refused the sender or the recipient${reply}.`
    case 'EMESSAGE':
      return `The SMTP server refused the message${reply}.`
    case 'EPROTOCOL':
      return `The server did not answer as an SMTP server${reply}.`
    default:
      return `Could not deliver through the SMTP server${reply}.`
  }
}

type Transport = Transporter<SMTPTransport.SentMessageInfo>

/** A transport to the checked address of the SMTP host, with the credential rules above. */
async function openTransport(
  connection: SmtpConnection,
  policy: OutboundPolicy,
  timeout: number,
): Promise<Transport> {
  let addresses: string[]
  try {
    addresses = await resolveAllowed(connection.host, policy)
  } catch (error) {
    if (error instanceof OutboundRefusedError)
      throw new MailDeliveryError(`The SMTP server was not contacted: ${error.message}.`)
    throw new MailDeliveryError('The SMTP host name could not be resolved.')
  }
  const hasCredentials = connection.username !== null
  const loopback =
    isLoopbackHost(connection.host) || addresses.every((address) => isLoopbackHost(address))
  const clearAllowed = connection.plaintextAuthOnLoopback === true && loopback
  nodemailer ??= require('nodemailer') as typeof Nodemailer
  return nodemailer.createTransport({
    // The address just checked, so a second resolution cannot lead elsewhere; TLS still checks the
    // name.
    host: addresses[0]!,
    port: connection.port,
    secure: connection.secure,
    requireTLS: hasCredentials && !connection.secure && !clearAllowed,
    ...(isIP(connection.host) === 0 && { servername: connection.host }),
    ...(hasCredentials && {
      auth: { user: connection.username!, pass: connection.password ?? '' },
    }),
    // nodemailer's defaults (up to 10 minutes) would hold a request open far too long.
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    dnsTimeout: timeout,
    // Our messages are plain text: nothing may make nodemailer read files or fetch URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  })
}

export function createMailer(options: { policy: OutboundPolicy; timeoutMs?: number }): Mailer {
  const timeout = options.timeoutMs ?? DEFAULT_SMTP_TIMEOUT_MS
  return {
    async send(connection, mail) {
      const transport = await openTransport(connection, options.policy, timeout)
      try {
        const info = await transport.sendMail({
          from:
            mail.from.name === null
              ? mail.from.address
              : { name: mail.from.name, address: mail.from.address },
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
        })
        return { messageId: info.messageId }
      } catch (error) {
        throw new MailDeliveryError(describeSmtpFailure(error))
      } finally {
        transport.close()
      }
    },
  }
}

/**
 * Connects, negotiates TLS and authenticates as sending would, then says QUIT without sending
 * anything (`switchboard doctor`). Failures are MailDeliveryErrors worded as for sending.
 */
export async function verifySmtpConnection(
  connection: SmtpConnection,
  options: { policy: OutboundPolicy; timeoutMs?: number },
): Promise<void> {
  const transport = await openTransport(
    connection,
    options.policy,
    options.timeoutMs ?? DEFAULT_SMTP_TIMEOUT_MS,
  )
  try {
    await transport.verify()
  } catch (error) {
    throw new MailDeliveryError(describeSmtpFailure(error, true))
  } finally {
    transport.close()
  }
}
