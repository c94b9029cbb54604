/** The mail adapter on its own: timeouts, TLS before credentials, and what a failure may say. */
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { startSmtpStandIn } from '../../../test/helpers/smtp-server.js'
import {
  createMailer,
  describeSmtpFailure,
  MailDeliveryError,
  SMTP_UNREACHABLE,
  type SmtpConnection,
} from './mailer.js'

const policy = { allowPrivateNetworks: true }
const sockets = new Set<net.Socket>()
// A server that accepts connections and never says a word: no SMTP greeting ever comes.
const silent = net.createServer((socket) => void sockets.add(socket))
afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => silent.close(resolve))
})

const mail = {
  from: { address: 'app@example.com', name: null },
  to: 'someone@example.com',
  subject: 'Hi',
  text: 'Hello',
}

describe('createMailer', () => {
  it('gives up on a server that never greets after its timeout, with a safe message', async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const connection: SmtpConnection = {
      host: '127.0.0.1',
      port: (silent.address() as AddressInfo).port,
      secure: false,
      username: null,
      password: null,
    }
    const started = Date.now()
    const error = await createMailer({ policy, timeoutMs: 300 })
      .send(connection, mail)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MailDeliveryError)
    expect((error as Error).message).toBe(SMTP_UNREACHABLE)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('never_authenticates_without_tls: a server without STARTTLS gets no AUTH and never sees the password', async () => {
    const server = await startSmtpStandIn({
      credentials: { username: 'mailer', password: 'pw-that-must-not-travel' },
    })
    try {
      const connection: SmtpConnection = {
        host: server.host,
        port: server.port,
        secure: false,
        username: 'mailer',
        password: 'pw-that-must-not-travel',
      }
      // A burst, as concurrent invitations would send.
      const errors = await Promise.all(
        Array.from({ length: 10 }, () =>
          createMailer({ policy })
            .send(connection, mail)
            .catch((e: unknown) => e),
        ),
      )
      for (const error of errors) {
        expect(error).toBeInstanceOf(MailDeliveryError)
        expect((error as Error).message).toMatch(
          /^TLS could not be established with the SMTP server/,
        )
      }
      expect(server.authAttempts).toBe(0)
      expect(server.received).toEqual([])
      const wire = server.clientBytes()
      expect(wire).toMatch(/EHLO/)
      expect(wire).toMatch(/STARTTLS/)
      expect(wire).not.toMatch(/AUTH/i)
      for (const form of [
        'pw-that-must-not-travel',
        Buffer.from('pw-that-must-not-travel').toString('base64'),
        Buffer.from('\0mailer\0pw-that-must-not-travel').toString('base64'),
      ]) {
        expect(wire).not.toContain(form)
      }
    } finally {
      await server.close()
    }
  })

  it('relays_in_clear_only_without_credentials_or_to_loopback_when_explicitly_allowed', async () => {
    const open = await startSmtpStandIn()
    const authed = await startSmtpStandIn({
      credentials: { username: 'mailer', password: 'loopback-pw' },
    })
    try {
      await createMailer({ policy }).send(
        { host: open.host, port: open.port, secure: false, username: null, password: null },
        mail,
      )
      expect(open.received).toHaveLength(1)
      const connection = {
        host: authed.host,
        port: authed.port,
        secure: false,
        username: 'mailer',
        password: 'loopback-pw',
      }
      await createMailer({ policy }).send({ ...connection, plaintextAuthOnLoopback: true }, mail)
      expect(authed.received).toHaveLength(1)
      expect(authed.received[0]!.username).toBe('mailer')
    } finally {
      await open.close()
      await authed.close()
    }
  })
})

describe('describeSmtpFailure', () => {
  it("names the stage and the reply code, never the server's text (which may quote credentials or another protocol's banner)", () => {
    const text = describeSmtpFailure({
      code: 'EAUTH',
      responseCode: 535,
      response: '535-5.7.8 rejected hunter2-secret',
    })
    expect(text).toBe('The SMTP server refused the authentication (reply code 535).')
    expect(
      describeSmtpFailure({
        code: 'EENVELOPE',
        responseCode: 550,
        response: '550 mailbox unavailable at internal-relay.corp',
      }),
    ).toBe('The SMTP server refused the sender or the recipient (reply code 550).')
    expect(
      describeSmtpFailure(
        { code: 'EPROTOCOL', response: 'SSH-2.0-OpenSSH_9.6 internal-host' },
        true,
      ),
    ).toBe('The server did not answer as an SMTP server.')
  })

  it('describes connection failures by their system error code only, for the operator', () => {
    expect(
      describeSmtpFailure({ code: 'ESOCKET', message: 'connect ECONNREFUSED 10.0.0.1:25' }, true),
    ).toBe('Could not connect to the SMTP server (ECONNREFUSED).')
  })

  it('otherwise words refused, silent and foreign servers alike (no port probing)', () => {
    for (const error of [
      { code: 'ESOCKET', message: 'connect ECONNREFUSED 127.0.0.1:22' },
      { code: 'ECONNECTION', message: 'connect ECONNREFUSED 127.0.0.1:22' },
      { code: 'ETIMEDOUT', message: 'Greeting never received' },
      { code: 'EPROTOCOL', response: 'SSH-2.0-OpenSSH_9.6' },
    ])
      expect(describeSmtpFailure(error)).toBe(SMTP_UNREACHABLE)
  })
})
