/**
 * Signed notes and checkpoints in the C2SP formats (c2sp.org/signed-note, c2sp.org/tlog-checkpoint)
 * with Ed25519 keys from node:crypto. A note is text ending in a newline; each signature line is
 * `— <key name> <base64(key hash ‖ signature)>`, the key hash being the first four bytes of
 * SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key). A verifier key is `<name>+<hex key hash>+<base64(0x01 ‖
 * public key)>`. A checkpoint's note is the origin line, the tree size in decimal and the base64
 * root hash, each on its own line. Promises: what `signNote` writes, any signed-note verifier
 * reads; `verifyNote` accepts a note only with a valid signature by the given key.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto'

const ED25519_ALGORITHM = 0x01
/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the 32 raw key bytes follow. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
const SIGNATURE_PREFIX = '\u2014 '
const NAME_PATTERN = /^[^\s+]+$/

export interface NoteSigner {
  name: string
  /** The signed-note verifier key: public, shown to administrators. */
  verifierKey: string
  sign(note: string): string
}

export interface NoteVerifier {
  name: string
  keyHash: Buffer
  publicKey: KeyObject
}

function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' }).subarray(SPKI_PREFIX.length)
}

function keyHashOf(name: string, raw: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from(`${name}\n`, 'utf8'))
    .update(Buffer.of(ED25519_ALGORITHM))
    .update(raw)
    .digest()
    .subarray(0, 4)
}

/** A new Ed25519 private key as base64 PKCS #8 DER (what the secrets file keeps). */
export function generateSigningKey(): string {
  return generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'der' })
    .toString('base64')
}

export function isSigningKey(text: string): boolean {
  try {
    return (
      createPrivateKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'pkcs8' })
        .asymmetricKeyType === 'ed25519'
    )
  } catch {
    return false
  }
}

/** A signer for `name`; the private key stays inside the closure. */
export function createNoteSigner(name: string, pkcs8Base64: string): NoteSigner {
  if (!NAME_PATTERN.test(name))
    throw new Error('a signed-note key name has no spaces or plus signs')
  const privateKey = createPrivateKey({
    key: Buffer.from(pkcs8Base64, 'base64'),
    format: 'der',
    type: 'pkcs8',
  })
  const raw = rawPublicKey(createPublicKey(privateKey))
  const keyHash = keyHashOf(name, raw)
  return {
    name,
    verifierKey: `${name}+${keyHash.toString('hex')}+${Buffer.concat([Buffer.of(ED25519_ALGORITHM), raw]).toString('base64')}`,
    sign(note) {
      const signature = sign(null, Buffer.from(note, 'utf8'), privateKey)
      return `${SIGNATURE_PREFIX}${name} ${Buffer.concat([keyHash, signature]).toString('base64')}\n`
    },
  }
}

/** Parses a verifier key; null when it is not an Ed25519 signed-note key whose hash matches. */
export function parseVerifierKey(text: string): NoteVerifier | null {
  // The key's base64 may itself hold '+': only the first two separate the fields.
  const match = /^([^+]+)\+([^+]+)\+(.+)$/.exec(text.trim())
  if (match === null) return null
  const [, name, hashHex, keyBase64] = match as unknown as [string, string, string, string]
  if (!NAME_PATTERN.test(name) || !/^[0-9a-f]{8}$/.test(hashHex)) return null
  const key = Buffer.from(keyBase64, 'base64')
  if (key.toString('base64') !== keyBase64 || key.length !== 33 || key[0] !== ED25519_ALGORITHM)
    return null
  const raw = key.subarray(1)
  if (!keyHashOf(name, raw).equals(Buffer.from(hashHex, 'hex'))) return null
  return {
    name,
    keyHash: Buffer.from(hashHex, 'hex'),
    publicKey: createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, raw]),
      format: 'der',
      type: 'spki',
    }),
  }
}

export interface SignedNote {
  /** The note text, ending in a newline. */
  text: string
  signatures: Array<{ name: string; keyHash: Buffer; signature: Buffer }>
}

/** Splits a signed note at its blank line; null when it is malformed. */
export function parseSignedNote(envelope: string): SignedNote | null {
  const split = envelope.lastIndexOf('\n\n')
  if (split < 0 || !envelope.endsWith('\n')) return null
  const text = envelope.slice(0, split + 1)
  const signatures: SignedNote['signatures'] = []
  for (const line of envelope.slice(split + 2, -1).split('\n')) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return null
    const [name, blob, extra] = line.slice(SIGNATURE_PREFIX.length).split(' ')
    if (name === undefined || blob === undefined || extra !== undefined) return null
    const bytes = Buffer.from(blob, 'base64')
    // Canonical base64 only: otherwise two spellings of one signature would both verify.
    if (bytes.length < 5 || bytes.toString('base64') !== blob) return null
    signatures.push({ name, keyHash: bytes.subarray(0, 4), signature: bytes.subarray(4) })
  }
  return signatures.length === 0 ? null : { text, signatures }
}

/** True when the note carries a valid signature by `verifier`. */
export function verifyNote(note: SignedNote, verifier: NoteVerifier): boolean {
  return note.signatures.some(
    (s) =>
      s.name === verifier.name &&
      s.keyHash.equals(verifier.keyHash) &&
      verify(null, Buffer.from(note.text, 'utf8'), verifier.publicKey, s.signature),
  )
}

export interface Checkpoint {
  origin: string
  size: number
  root: Buffer
}

export function checkpointText(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString('base64')}\n`
}

/** The checkpoint a note's text holds; null when it is not one. */
export function parseCheckpoint(text: string): Checkpoint | null {
  const lines = text.split('\n')
  if (lines.length < 4 || lines.at(-1) !== '') return null
  const [origin, size, root] = lines as [string, string, string]
  if (origin === '' || !/^(0|[1-9][0-9]{0,15})$/.test(size) || !isCanonicalHash(root)) return null
  return { origin, size: Number(size), root: Buffer.from(root, 'base64') }
}

/**
 * A 32-byte hash in canonical base64: the last character's unused bits zero, so no two spellings
 * of one hash exist (a changed character that decoded to the same bytes would go unnoticed).
 */
export function isCanonicalHash(text: string): boolean {
  // Decoding skips characters outside the alphabet, so re-encoding to the same text proves the
  // form.
  return text.length === 44 && Buffer.from(text, 'base64').toString('base64') === text
}
