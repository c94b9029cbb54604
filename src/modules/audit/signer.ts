/**
 * The audit log's signer: a C2SP signed-note key named after the log's origin, built
 * once at start-up from the configured or generated Ed25519 key (lib/secrets.ts). The private key
 * stays inside the signer; only the verifier key is ever shown.
 */
import { createNoteSigner, type NoteSigner } from '../../lib/signed-note.js'

/**
 * The log's origin line and key name: `<host><path>/audit-log`, e.g. `sso.example.com/audit-log`.
 */
export function auditLogOrigin(publicUrl: string): string {
  const url = new URL(publicUrl)
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/audit-log`
}

export function createAuditSigner(publicUrl: string, signingKey: string): NoteSigner {
  return createNoteSigner(auditLogOrigin(publicUrl), signingKey)
}
