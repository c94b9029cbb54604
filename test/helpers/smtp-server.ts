/**
 * A real SMTP server in the test process (the `smtp-server` package) on 127.0.0.1, port 0. It keeps
 * every message it accepts, checks credentials when given some, and can be told to refuse
 * recipients with a reply such as `550 mailbox unavailable`.
 */
import type { Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  from: string
  to: string[]
  /** The raw message (headers and body) as received. */
  raw: string
  username: string | null
}

export interface SmtpStandInOptions {
  /** When set, AUTH is required with exactly these credentials. */
  credentials?: { username: string; password: string }
  /** A wrong password is answered with a reply that quotes it back, as a careless server might. */
  echoPasswordOnFailure?: boolean
}

export interface SmtpStandIn {
  host: string
  port: number
  received: ReceivedMail[]
  /**
   * Refuse every recipient with this SMTP code and text (e.g. 550, 'mailbox unavailable'); null
   * accepts.
   */
  rejectRecipients: { code: number; text: string } | null
  /**
   * Everything clients sent, byte for byte, across connections (to prove what never went over the
   * wire).
   */
  clientBytes(): string
  /** How often a client tried AUTH. */
  authAttempts: number
  close(): Promise<void>
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code })
}

export async function startSmtpStandIn(options: SmtpStandInOptions = {}): Promise<SmtpStandIn> {
  const received: ReceivedMail[] = []
  const standIn = { received, rejectRecipients: null, authAttempts: 0 } as SmtpStandIn
  const sent: Buffer[] = []
  const server = new SMTPServer({
    // No TLS certificate here: no STARTTLS, and AUTH allowed in clear on the loopback interface.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: options.credentials === undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      standIn.authAttempts++
      const expected = options.credentials
      if (
        expected !== undefined &&
        auth.username === expected.username &&
        auth.password === expected.password
      ) {
        return callback(null, { user: auth.username })
      }
      const quoted = options.echoPasswordOnFailure
        ? ` for ${auth.username} with password ${auth.password}`
        : ''
      return callback(smtpError(535, `Authentication failed${quoted}`))
    },
    onRcptTo(_address, _session, callback) {
      const reject = standIn.rejectRecipients
      callback(reject === null ? null : smtpError(reject.code, reject.text))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          username: typeof session.user === 'string' ? session.user : null,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  server.server.prependListener('connection', (socket: Socket) =>
    socket.on('data', (chunk: Buffer) => void sent.push(chunk)),
  )
  const address = server.server.address() as AddressInfo
  return Object.assign(standIn, {
    host: '127.0.0.1',
    port: address.port,
    clientBytes: () => Buffer.concat(sent).toString('latin1'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  })
}

/** The text body of a received single-part mail, quoted-printable decoded when it is so encoded. */
export function textOf(mail: ReceivedMail): string {
  const split = mail.raw.search(/\r?\n\r?\n/)
  const headers = split === -1 ? mail.raw : mail.raw.slice(0, split)
  const body = split === -1 ? '' : mail.raw.slice(split).trim()
  if (!/^content-transfer-encoding:\s*quoted-printable/im.test(headers)) return body
  // Soft line breaks go; =XX becomes %XX (a literal % escaped first), then UTF-8 decodes as a URI.
  return decodeURIComponent(
    body
      .replace(/=\r?\n/g, '')
      .replace(/%/g, '%25')
      .replace(/=([0-9A-F]{2})/g, '%$1'),
  )
}
