/**
 * The words of each security notification, in English and German (the person's language when it
 * starts with `de`, else English). Each says what happened, when, from where, and what to do if it
 * was not them. Only what notifications/kinds.ts NotificationParams carries goes in: never a
 * secret.
 */
import type { NotificationKind, NotificationParams } from './kinds.js'

type Language = 'en' | 'de'

interface Words {
  subject: string
  happened: (p: NotificationParams) => string
}

const EN: Record<NotificationKind, Words> = {
  new_sign_in: {
    subject: 'New sign-in to your account',
    happened: () =>
      'Your account was signed in to from a browser or system it has not used before.',
  },
  password_changed: {
    subject: 'Your password was changed',
    happened: () => 'The password of your account was changed.',
  },
  password_reset: {
    subject: 'Your password was reset',
    happened: () =>
      'The password of your account was set with a password reset link, and every session was signed out. Two-factor authentication stays as it was.',
  },
  email_change_requested: {
    subject: 'A change of your email address was requested',
    happened: (p) =>
      `Someone asked to change your account's email address to ${p.new_email_masked ?? 'a new address'}. It changes once the link sent there is opened.`,
  },
  email_changed: {
    subject: 'Your email address was changed',
    happened: () => "Your account's email address was changed; mail now goes to the new address.",
  },
  two_factor_enabled: {
    subject: 'Two-factor authentication was turned on',
    happened: () => 'Two-factor authentication was turned on for your account.',
  },
  two_factor_disabled: {
    subject: 'Two-factor authentication was turned off',
    happened: () => 'Two-factor authentication was turned off for your account.',
  },
  backup_codes_regenerated: {
    subject: 'New backup codes were created',
    happened: () =>
      'A new set of backup codes was created for your account; the earlier codes no longer work.',
  },
  two_factor_reset: {
    subject: 'Your two-factor authentication was reset',
    happened: (p) =>
      p.by_administrator === false
        ? "The server's operator reset two-factor authentication for your account; you were signed out everywhere."
        : 'An administrator reset two-factor authentication for your account; you were signed out everywhere.',
  },
  passkey_added: {
    subject: 'A passkey was added',
    happened: (p) => `A passkey${p.name ? ` named "${p.name}"` : ''} was added to your account.`,
  },
  passkey_removed: {
    subject: 'A passkey was removed',
    happened: (p) =>
      `A passkey${p.name ? ` named "${p.name}"` : ''} was removed from your account.`,
  },
  api_token_created: {
    subject: 'A new API token was created',
    happened: (p) =>
      `An API token${p.name ? ` named "${p.name}"` : ''} was created for your account.`,
  },
  administration_trust_changed: {
    subject: 'An administrator changed who can reach accounts',
    happened: (p) =>
      `${p.actor_email_masked ?? 'An administrator'} ${
        p.change === 'smtp'
          ? 'changed the SMTP server or sender address (where reset links and invitations go)'
          : p.change === 'scim_credential'
            ? `created a SCIM credential${p.name ? ` named "${p.name}"` : ''} (it provisions accounts)`
            : `added an identity provider or changed its issuer or trust${p.name ? ` ("${p.name}")` : ''}`
      }.`,
  },
}

const DE: Record<NotificationKind, Words> = {
  new_sign_in: {
    subject: 'Neue Anmeldung bei Ihrem Konto',
    happened: () =>
      'Bei Ihrem Konto wurde sich mit einem Browser oder System angemeldet, das es bisher nicht verwendet hat.',
  },
  password_changed: {
    subject: 'Ihr Passwort wurde geändert',
    happened: () => 'Das Passwort Ihres Kontos wurde geändert.',
  },
  password_reset: {
    subject: 'Ihr Passwort wurde zurückgesetzt',
    happened: () =>
      'Das Passwort Ihres Kontos wurde über einen Link zum Zurücksetzen neu festgelegt, und alle Sitzungen wurden abgemeldet. Die Zwei-Faktor-Authentifizierung bleibt unverändert.',
  },
  email_change_requested: {
    subject: 'Eine Änderung Ihrer E-Mail-Adresse wurde angefordert',
    happened: (p) =>
      `Es wurde angefordert, die E-Mail-Adresse Ihres Kontos in ${p.new_email_masked ?? 'eine neue Adresse'} zu ändern. Sie ändert sich, sobald der dorthin gesendete Link geöffnet wird.`,
  },
  email_changed: {
    subject: 'Ihre E-Mail-Adresse wurde geändert',
    happened: () =>
      'Die E-Mail-Adresse Ihres Kontos wurde geändert; E-Mails gehen jetzt an die neue Adresse.',
  },
  two_factor_enabled: {
    subject: 'Zwei-Faktor-Authentifizierung wurde eingeschaltet',
    happened: () => 'Für Ihr Konto wurde die Zwei-Faktor-Authentifizierung eingeschaltet.',
  },
  two_factor_disabled: {
    subject: 'Zwei-Faktor-Authentifizierung wurde ausgeschaltet',
    happened: () => 'Für Ihr Konto wurde die Zwei-Faktor-Authentifizierung ausgeschaltet.',
  },
  backup_codes_regenerated: {
    subject: 'Neue Backup-Codes wurden erstellt',
    happened: () =>
      'Für Ihr Konto wurden neue Backup-Codes erstellt; die bisherigen Codes gelten nicht mehr.',
  },
  two_factor_reset: {
    subject: 'Ihre Zwei-Faktor-Authentifizierung wurde zurückgesetzt',
    happened: (p) =>
      p.by_administrator === false
        ? 'Der Betreiber des Servers hat die Zwei-Faktor-Authentifizierung Ihres Kontos zurückgesetzt; Sie wurden überall abgemeldet.'
        : 'Eine Administratorin oder ein Administrator hat die Zwei-Faktor-Authentifizierung Ihres Kontos zurückgesetzt; Sie wurden überall abgemeldet.',
  },
  passkey_added: {
    subject: 'Ein Passkey wurde hinzugefügt',
    happened: (p) =>
      `Ihrem Konto wurde ein Passkey${p.name ? ` mit dem Namen „${p.name}“` : ''} hinzugefügt.`,
  },
  passkey_removed: {
    subject: 'Ein Passkey wurde entfernt',
    happened: (p) =>
      `Aus Ihrem Konto wurde ein Passkey${p.name ? ` mit dem Namen „${p.name}“` : ''} entfernt.`,
  },
  api_token_created: {
    subject: 'Ein neues API-Token wurde erstellt',
    happened: (p) =>
      `Für Ihr Konto wurde ein API-Token${p.name ? ` mit dem Namen „${p.name}“` : ''} erstellt.`,
  },
  administration_trust_changed: {
    subject: 'Eine Administration hat geändert, wer Konten erreichen kann',
    happened: (p) =>
      `${p.actor_email_masked ?? 'Eine Administratorin oder ein Administrator'} hat ${
        p.change === 'smtp'
          ? 'den SMTP-Server oder die Absenderadresse geändert (dorthin gehen Links zum Zurücksetzen und Einladungen)'
          : p.change === 'scim_credential'
            ? `einen SCIM-Zugang${p.name ? ` „${p.name}“` : ''} erstellt (er legt Konten an)`
            : `einen Identitätsanbieter hinzugefügt oder seinen Aussteller oder sein Vertrauen geändert${p.name ? ` („${p.name}“)` : ''}`
      }.`,
  },
}

const FRAME = {
  en: {
    when: 'When',
    where: 'From',
    unknown: 'unknown',
    on: 'on',
    notYou:
      'If this was you, there is nothing to do. If it was not, sign in and change your password at once, check your two-factor authentication, sessions and API tokens on the security page, and tell your administrator:',
    why: 'You receive this mail because it concerns the security of your Switchboard account.',
    optOut: 'You can switch off mails about new sign-ins on the security page.',
  },
  de: {
    when: 'Wann',
    where: 'Von',
    unknown: 'unbekannt',
    on: 'unter',
    notYou:
      'Wenn Sie das waren, ist nichts zu tun. Wenn nicht, melden Sie sich an und ändern Sie sofort Ihr Passwort, prüfen Sie auf der Sicherheitsseite Ihre Zwei-Faktor-Authentifizierung, Sitzungen und API-Tokens und informieren Sie Ihre Administration:',
    why: 'Sie erhalten diese E-Mail, weil sie die Sicherheit Ihres Switchboard-Kontos betrifft.',
    optOut: 'E-Mails über neue Anmeldungen können Sie auf der Sicherheitsseite ausschalten.',
  },
} as const

export interface RenderedMail {
  subject: string
  text: string
}

export function renderNotification(
  kind: NotificationKind,
  language: string,
  params: NotificationParams,
  publicUrl: string,
): RenderedMail {
  const lang: Language = language === 'de' ? 'de' : 'en'
  const words = (lang === 'de' ? DE : EN)[kind]
  const frame = FRAME[lang]
  const when = new Date(params.at).toLocaleString(lang === 'de' ? 'de-DE' : 'en-GB', {
    timeZone: 'UTC',
    dateStyle: 'long',
    timeStyle: 'short',
  })
  const device =
    [params.browser, params.system].filter((part) => part !== null).join(` ${frame.on} `) ||
    frame.unknown
  const lines = [
    words.happened(params),
    '',
    `${frame.when}: ${when} UTC`,
    `${frame.where}: ${params.ip ?? frame.unknown} (${device})`,
    '',
    frame.notYou,
    `${publicUrl.replace(/\/$/, '')}/account/security`,
    '',
    '--',
    frame.why,
    ...(kind === 'new_sign_in' ? [frame.optOut] : []),
  ]
  return { subject: `Switchboard: ${words.subject}`, text: `${lines.join('\n')}\n` }
}
