/**
 * The mail adapter: one message through one SMTP server, with nodemailer. A fresh connection per
 * message keeps it simple and always uses the current settings (mail here is rare: tests,
 * verifications, invitations). Failures come back as MailDeliveryError carrying what the server
 * said — with the credentials removed, since a misbehaving server may echo them back.
 */
import { createRequire } from 'node:module'
import type Nodemailer from 'nodemailer'

// Loaded by the first message: most instances send mail rarely or never (ARCHITECTURE.md,
// "Runtime and footprint").
const require = createRequire(import.meta.url)
let nodemailer: typeof Nodemailer | undefined

export interface SmtpConnection {
  host: string
  port: number
  /** TLS from the first byte; otherwise STARTTLS whenever the server offers it. */
  secure: boolean
  username: string | null
  password: string | null
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
const MAX_REPLY_LENGTH = 300

/** Every form in which the credentials travel over SMTP (plain, AUTH LOGIN and AUTH PLAIN base64). */
function credentialForms(connection: SmtpConnection): string[] {
  const { username, password } = connection
  if (password === null || password === '') return []
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
  return [password, b64(password), ...(username === null ? [] : [b64(`\0${username}\0${password}`), b64(`${username}\0${username}\0${password}`)])]
}

/** One line of what went wrong, safe to show to an administrator. */
export function describeSmtpFailure(error: unknown, connection: SmtpConnection): string {
  const e = error as { code?: string; response?: unknown; message?: string }
  let text: string
  if (typeof e.response === 'string' && e.response !== '') text = `The SMTP server answered: ${e.response}`
  else if (e.code === 'ETIMEDOUT') text = 'The SMTP server did not answer in time.'
  else text = `Could not deliver through the SMTP server: ${e.message ?? 'unknown error'}`
  for (const secret of credentialForms(connection)) text = text.split(secret).join('[redacted]')
  text = text.replace(/\s+/g, ' ').trim()
  return text.length > MAX_REPLY_LENGTH ? `${text.slice(0, MAX_REPLY_LENGTH)}…` : text
}

export function createMailer(options: { timeoutMs?: number } = {}): Mailer {
  const timeout = options.timeoutMs ?? DEFAULT_SMTP_TIMEOUT_MS
  return {
    async send(connection, mail) {
      nodemailer ??= require('nodemailer') as typeof Nodemailer
      const transport = nodemailer.createTransport({
        host: connection.host,
        port: connection.port,
        secure: connection.secure,
        ...(connection.username !== null && { auth: { user: connection.username, pass: connection.password ?? '' } }),
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
      try {
        const info = await transport.sendMail({
          from: mail.from.name === null ? mail.from.address : { name: mail.from.name, address: mail.from.address },
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
        })
        return { messageId: info.messageId }
      } catch (error) {
        throw new MailDeliveryError(describeSmtpFailure(error, connection))
      } finally {
        transport.close()
      }
    },
  }
}
