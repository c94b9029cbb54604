/** The mail adapter on its own: timeouts and what a failure may say. */
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { createMailer, describeSmtpFailure, MailDeliveryError, type SmtpConnection } from './mailer.js'

const sockets = new Set<net.Socket>()
// A server that accepts connections and never says a word: no SMTP greeting ever comes.
const silent = net.createServer((socket) => void sockets.add(socket))
afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => silent.close(resolve))
})

const mail = { from: { address: 'app@example.com', name: null }, to: 'someone@example.com', subject: 'Hi', text: 'Hello' }

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
    const error = await createMailer({ timeoutMs: 300 }).send(connection, mail).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MailDeliveryError)
    expect((error as Error).message).toBe('The SMTP server did not answer in time.')
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})

describe('describeSmtpFailure', () => {
  const connection: SmtpConnection = { host: 'smtp.example.com', port: 587, secure: false, username: 'bob', password: 'hunter2-secret' }

  it("quotes the server's reply on one line, with the credentials in every form they travel removed", () => {
    const plain = Buffer.from('\0bob\0hunter2-secret').toString('base64')
    const login = Buffer.from('hunter2-secret').toString('base64')
    const text = describeSmtpFailure(
      { code: 'EAUTH', response: `535-5.7.8 rejected hunter2-secret\r\n535 5.7.8 tried ${plain} and ${login}` },
      connection,
    )
    expect(text).toBe('The SMTP server answered: 535-5.7.8 rejected [redacted] 535 5.7.8 tried [redacted] and [redacted]')
  })

  it('describes failures without a reply by their message, and caps the length', () => {
    expect(describeSmtpFailure({ code: 'ESOCKET', message: 'connect ECONNREFUSED 10.0.0.1:25' }, connection)).toBe(
      'Could not deliver through the SMTP server: connect ECONNREFUSED 10.0.0.1:25',
    )
    expect(describeSmtpFailure({ response: `550 ${'x'.repeat(1000)}` }, connection).length).toBeLessThanOrEqual(301)
  })
})
