/**
 * The secrets the settings and OIDC tests configure, and a guard that records every response a test
 * file's application sends and, when the file is done, asserts that none of them — nor any log line
 * — carries one of those secrets in any form: whole, base64-encoded (as SMTP AUTH sends it) or as
 * any 8-character piece (as providers that "mask" a key quote it).
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, expect } from 'vitest'
import type { TestContext } from './app.js'

export const SMTP_USERNAME = 'mailer@example.com'
export const SMTP_PASSWORD = 'q7Zx-Vrb4tim-k2Lw-93jd'
export const OTHER_SMTP_PASSWORD = 'Hn3v-Wq8c-Pz1x-Lk5m'
export const AI_API_KEY = 'sk-Qm4Yt7Rw2Ek9Uz3Hx6Cv'
export const OTHER_AI_API_KEY = 'sk-Jb8Ns5Df1Gk6Lp2Mq7Wz'
/** The client secret registered at the OIDC provider stand-in, and another one it refuses. */
export const OIDC_CLIENT_SECRET = 'oidc-Rk4Tq9Wz-Hm2Xv7Ln-Pb5Jc8'
export const OTHER_OIDC_CLIENT_SECRET = 'oidc-Gy6Dw3Qs-Vf1Mz8Kt-Ea4Nh2'

/** The forms of a secret that must never appear outside the server. */
export function leakFormsOf(secret: string): string[] {
  const pieces = Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8))
  return [
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    ...pieces,
  ]
}

export function findLeak(text: string, secrets: readonly string[]): string | null {
  for (const secret of secrets)
    for (const form of leakFormsOf(secret)) if (text.includes(form)) return form
  return null
}

/**
 * Installs the recorder on `t.app` (after useTestApp has built it) and the check after the file.
 */
export function scanResponsesForSecrets(
  t: TestContext,
  secrets: readonly string[] = [SMTP_PASSWORD, OTHER_SMTP_PASSWORD, AI_API_KEY, OTHER_AI_API_KEY],
): LightMyRequestResponse[] {
  const responses: LightMyRequestResponse[] = []
  beforeAll(() => {
    const inject = t.app.inject.bind(t.app) as (
      options: InjectOptions | string,
    ) => Promise<LightMyRequestResponse>
    t.app.inject = (async (options: InjectOptions | string) => {
      const response = await inject(options)
      responses.push(response)
      return response
    }) as unknown as typeof t.app.inject
  })
  afterAll(() => {
    expect(responses.length).toBeGreaterThan(0)
    for (const response of responses) {
      const text = `${response.body}\n${JSON.stringify(response.headers)}`
      expect(
        findLeak(text, secrets),
        `${response.statusCode} ${response.body.slice(0, 200)}`,
      ).toBeNull()
    }
    for (const line of t.logs) expect(findLeak(line, secrets), line).toBeNull()
  })
  return responses
}
