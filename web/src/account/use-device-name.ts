/** "Firefox on Linux" (or what is known of it) for a user agent, in the language shown. */
import { useI18n } from '../i18n/i18n'
import { describeDevice } from './devices'

export function useDeviceName(): (userAgent: string | null) => string {
  const { t } = useI18n()
  return (userAgent) => {
    const device = describeDevice(userAgent)
    if (device.browser && device.system)
      return t('sessions.browserOn', { browser: device.browser, system: device.system })
    return device.browser ?? device.system ?? t('sessions.unknownDevice')
  }
}
