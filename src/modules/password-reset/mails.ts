/**
 * The words of the two mails a reset request can send, in English and German (the account's
 * language when it starts with `de`, else English): the link itself, and — for an account that
 * signs in only through an identity provider — the note that there is no password to reset. Only
 * the link carries a secret; the mail says how long it is valid and what to do if nobody asked.
 */
export interface ResetMail {
  subject: string
  text: string
}

function isGerman(language: string): boolean {
  return language.toLowerCase().startsWith('de')
}

export function resetLinkMail(language: string, link: string, validMinutes: number): ResetMail {
  const hours = validMinutes % 60 === 0 ? validMinutes / 60 : null
  if (isGerman(language)) {
    const validity =
      hours === null ? `${validMinutes} Minuten` : hours === 1 ? 'einer Stunde' : `${hours} Stunden`
    return {
      subject: 'Passwort für Switchboard zurücksetzen',
      text:
        'Für Ihr Switchboard-Konto wurde angefordert, das Passwort zurückzusetzen.\n\n' +
        `Um ein neues Passwort festzulegen, öffnen Sie diesen Link innerhalb von ${validity}. Er funktioniert nur einmal:\n${link}\n\n` +
        'Ein neues Passwort meldet Sie überall ab. Die Zwei-Faktor-Authentifizierung bleibt eingeschaltet.\n\n' +
        'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.\n',
    }
  }
  const validity =
    hours === null ? `${validMinutes} minutes` : hours === 1 ? 'an hour' : `${hours} hours`
  return {
    subject: 'Reset your Switchboard password',
    text:
      'Someone, hopefully you, asked to reset the password of your Switchboard account.\n\n' +
      `To set a new password, open this link within ${validity}. It works once:\n${link}\n\n` +
      'A new password signs you out everywhere. Two-factor authentication stays on.\n\n' +
      'If you did not ask for this, ignore this message: your password stays as it is.\n',
  }
}

export function providerOnlyMail(language: string, provider: string, loginUrl: string): ResetMail {
  if (isGerman(language)) {
    return {
      subject: 'Anmeldung bei Switchboard',
      text:
        'Für Ihr Switchboard-Konto wurde angefordert, das Passwort zurückzusetzen.\n\n' +
        `Ihr Konto hat kein Passwort: Sie melden sich über ${provider} an. Wählen Sie auf der Anmeldeseite „Mit ${provider} anmelden“:\n${loginUrl}\n\n` +
        'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: nichts hat sich geändert.\n',
    }
  }
  return {
    subject: 'Signing in to Switchboard',
    text:
      'Someone, hopefully you, asked to reset the password of your Switchboard account.\n\n' +
      `Your account has no password: you sign in through ${provider}. On the sign-in page, choose "Sign in with ${provider}":\n${loginUrl}\n\n` +
      'If you did not ask for this, ignore this message: nothing has changed.\n',
  }
}

/**
 * The first mail of an account an administrator created without a password: what it is, and the
 * link to choose one. Nothing about resetting — the account never had a password.
 */
export function welcomeMail(language: string, link: string, validDays: number): ResetMail {
  if (isGerman(language)) {
    return {
      subject: 'Ihr Switchboard-Konto',
      text:
        'Für Sie wurde ein Konto bei Switchboard angelegt.\n\n' +
        `Um Ihr Passwort festzulegen, öffnen Sie diesen Link innerhalb von ${validDays} Tagen. Er funktioniert nur einmal:\n${link}\n\n` +
        'Wenn Sie kein Konto erwartet haben, fragen Sie Ihre Administration oder ignorieren Sie diese E-Mail.\n',
    }
  }
  return {
    subject: 'Your Switchboard account',
    text:
      'An account was created for you on Switchboard.\n\n' +
      `To set your password, open this link within ${validDays} days. It works once:\n${link}\n\n` +
      'If you did not expect an account, ask your administrator or ignore this message.\n',
  }
}
