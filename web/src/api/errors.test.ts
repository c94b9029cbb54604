import { beforeAll, describe, expect, it } from 'vitest'
import { formatters, loadLanguage, loadSignedInCatalogues } from '../i18n/i18n'
import { describeError } from '../ui/describe-error'
import { ApiError, NetworkError, fieldErrors, placeError } from './errors'

// The catalogues load on demand; the console loads a language before its first render.
beforeAll(() => Promise.all([loadLanguage('en'), loadLanguage('de')]))

const envelope = (reason: string, extra: Record<string, unknown> = {}) => ({
  code: 400,
  error: 'Bad Request',
  reason,
  message: `API says ${reason}`,
  ...extra,
})

describe('ApiError.from', () => {
  it('reads reason, message, details and retryAfter from the envelope', () => {
    const error = ApiError.from(
      429,
      envelope('RATE_LIMITED', {
        retryAfter: 42,
        details: [{ field: 'email', message: 'x' }, { nope: 1 }],
      }),
    )
    expect(error).toMatchObject({
      status: 429,
      reason: 'RATE_LIMITED',
      message: 'API says RATE_LIMITED',
      retryAfter: 42,
    })
    expect(error.details).toEqual([{ field: 'email', message: 'x' }])
  })

  it('falls back to the Retry-After header, and to a reason by status for a body that is not an envelope', () => {
    expect(ApiError.from(429, 'Too Many', '30').retryAfter).toBe(30)
    expect(ApiError.from(502, '<html>bad gateway</html>').reason).toBe('SERVICE_UNAVAILABLE')
    expect(ApiError.from(418, null).reason).toBe('UNKNOWN')
  })
})

describe('where an error is shown', () => {
  it('at the field the details name (first message per field)', () => {
    const error = ApiError.from(
      400,
      envelope('VALIDATION_FAILED', {
        details: [
          { field: 'password', message: 'is too common' },
          { field: 'password', message: 'second' },
        ],
      }),
    )
    expect(fieldErrors(error)).toEqual({ password: 'is too common' })
    expect(placeError(error, ['email', 'password'])).toEqual({
      field: 'password',
      reason: 'VALIDATION_FAILED',
      message: 'is too common',
    })
  })

  it('a field the form does not have goes to the whole form', () => {
    const error = ApiError.from(
      400,
      envelope('VALIDATION_FAILED', {
        details: [{ field: 'body', message: 'must contain at least one field' }],
      }),
    )
    expect(placeError(error, ['name']).field).toBeNull()
  })

  it('reasons about one field go to it: wrong credentials and wrong passwords at the password, wrong codes at the code', () => {
    expect(
      placeError(ApiError.from(401, envelope('INVALID_CREDENTIALS')), ['email', 'password']).field,
    ).toBe('password')
    expect(
      placeError(ApiError.from(400, envelope('INVALID_PASSWORD')), [
        'current_password',
        'new_password',
      ]).field,
    ).toBe('current_password')
    expect(
      placeError(ApiError.from(400, envelope('INVALID_CODE')), ['code', 'password']).field,
    ).toBe('code')
    expect(placeError(ApiError.from(409, envelope('ALREADY_EXISTS')), ['email']).field).toBeNull()
  })

  it('a network failure is a sentence for the whole form', () => {
    expect(placeError(new NetworkError(new TypeError('fetch failed')), ['email'])).toEqual({
      field: null,
      reason: 'NETWORK',
      message: '',
    })
  })
})

describe('the sentence shown', () => {
  const en = formatters('en')
  const de = formatters('de')

  it('translates a known reason and keeps the API message only for an unknown one', () => {
    expect(
      describeError(ApiError.from(401, envelope('INVALID_CREDENTIALS')), ['email', 'password'], de)
        .text,
    ).toBe('E-Mail-Adresse oder Passwort ist falsch.')
    expect(describeError(ApiError.from(409, envelope('SOMETHING_NEW')), ['email'], en).text).toBe(
      'API says SOMETHING_NEW',
    )
    // Never English on a German page: a reason without a German sentence gets the general one.
    expect(describeError(ApiError.from(409, envelope('SOMETHING_NEW')), ['email'], de).text).toBe(
      'Etwas ist schiefgegangen. Versuchen Sie es erneut.',
    )
  })

  it('says what to do for every reason the API has, in German', async () => {
    // These sentences come with the signed-in areas (web/src/i18n/*/errors.json).
    await loadSignedInCatalogues()
    for (const reason of [
      'NOT_FOUND',
      'UNAUTHORIZED',
      'PAYLOAD_TOO_LARGE',
      'MALFORMED_JSON',
      'UNSUPPORTED_MEDIA_TYPE',
      'METHOD_NOT_ALLOWED',
      'REQUEST_TIMEOUT',
      'INSUFFICIENT_SCOPE',
    ]) {
      const text = describeError(ApiError.from(400, envelope(reason)), [], de).text
      expect(text, reason).not.toContain('API says')
      expect(text, reason).not.toBe(de.t('reason.UNKNOWN'))
    }
  })

  it('says what to do for each password problem, with its limit', () => {
    const problem = (code: string, limit?: number) =>
      describeError(
        ApiError.from(
          400,
          envelope('VALIDATION_FAILED', {
            details: [{ field: 'password', message: 'x', code, limit }],
          }),
        ),
        ['password'],
        de,
      ).fields.password
    expect(problem('too_short', 8)).toBe('Geben Sie mindestens 8 Zeichen ein.')
    expect(problem('same_as_email')).toBe(
      'Wählen Sie ein Passwort, das nicht Ihre E-Mail-Adresse ist.',
    )
    expect(problem('common_password')).toMatch(
      /^Dieses Passwort steht in Listen gestohlener Passwörter\./,
    )
  })

  it('says when to retry after a 429', () => {
    expect(
      describeError(
        ApiError.from(429, envelope('RATE_LIMITED', { retryAfter: 600 })),
        ['email'],
        en,
      ).text,
    ).toBe('Too many attempts. Try again in 10 minutes.')
    expect(
      describeError(ApiError.from(429, envelope('RATE_LIMITED', { retryAfter: 20 })), ['email'], de)
        .text,
    ).toBe('Zu viele Versuche. Versuchen Sie es in 20 Sekunden erneut.')
  })
})
