import type { Executor } from '../../db/schema.js'
import type { EncryptedStore } from '../keys/rewrap.js'
import { findSettingRow, upsertSettingRow } from './repo.js'
import { AI_SECTION, SMTP_SECTION } from './sections.js'

/** The write-only secret field of each typed section (stored inside its JSON row). */
const SECRET_FIELDS: Array<[string, string]> = [
  [SMTP_SECTION.key, 'password_encrypted'],
  [AI_SECTION.key, 'api_key_encrypted'],
]

/** The SMTP password and the AI key. */
export const settingsSecrets: EncryptedStore = {
  name: 'settings_secrets',
  async reencrypt(tx: Executor, rewrap) {
    let count = 0
    for (const [key, field] of SECRET_FIELDS) {
      const row = await findSettingRow(tx, key)
      if (row === null) continue
      const value = JSON.parse(row.value) as Record<string, unknown>
      const ciphertext = value[field]
      if (typeof ciphertext !== 'string') continue
      value[field] = rewrap(ciphertext, `settings.${key}`)
      await upsertSettingRow(tx, {
        key,
        value: JSON.stringify(value),
        updatedAt: row.updated_at,
        updatedBy: null,
      })
      count += 1
    }
    return count
  },
}
