/**
 * A software authenticator for API tests: ES256 keys from node:crypto, attestation "none", and
 * assertions built byte by byte as WebAuthn Level 3 §6.1 (authenticator data), §5.8.1 (client
 * data) and §6.5.4 (signature over authenticatorData ‖ SHA-256(clientDataJSON)) describe them.
 * Every field a test wants to break (origin, RP id, counter, flags, challenge) can be overridden.
 */
import {
  createHash,
  createSign,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto'

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | Cbor[]

/**
 * The CBOR subset (RFC 8949) attestation objects and COSE keys need: ints, byte and text strings,
 * arrays, maps.
 */
function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n])
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n])
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff])
    const b = Buffer.alloc(5)
    b[0] = (major << 5) | 26
    b.writeUInt32BE(n, 1)
    return b
  }
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8')
    return Buffer.concat([head(3, text.length), text])
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)])
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)])
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])])
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url')
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest()

const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 }

export interface StoredCredential {
  id: string
  privateKey: KeyObject
  userHandle: string
  counter: number
  /** The backup flags it was made with: its assertions report the same unless overridden. */
  backupEligible: boolean
  backedUp: boolean
}

export interface CeremonyOverrides {
  origin?: string
  rpId?: string
  challenge?: string
  /** User verification (PIN, biometrics) done: default true. */
  userVerified?: boolean
  /** The signature counter to report (default: the previous one + 1). */
  counter?: number
  backupEligible?: boolean
  backedUp?: boolean
  type?: string
}

interface CreationOptions {
  challenge: string
  rp: { id?: string }
  user: { id: string }
}

interface RequestOptions {
  challenge: string
  rpId?: string
}

export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = []

  readonly origin: string
  private readonly defaults: { backupEligible?: boolean; backedUp?: boolean }

  // Plain fields, no parameter properties: the screenshots script runs this file with Node's type
  // stripping.
  constructor(origin: string, defaults: { backupEligible?: boolean; backedUp?: boolean } = {}) {
    this.origin = origin
    this.defaults = defaults
  }

  private flags(o: CeremonyOverrides, extra: number, made?: StoredCredential): number {
    let flags = FLAG.UP | extra
    if (o.userVerified ?? true) flags |= FLAG.UV
    if (o.backupEligible ?? made?.backupEligible ?? this.defaults.backupEligible ?? false)
      flags |= FLAG.BE
    if (o.backedUp ?? made?.backedUp ?? this.defaults.backedUp ?? false) flags |= FLAG.BS
    return flags
  }

  private clientData(type: string, challenge: string, o: CeremonyOverrides): Buffer {
    return Buffer.from(
      JSON.stringify({
        type: o.type ?? type,
        challenge: o.challenge ?? challenge,
        origin: o.origin ?? this.origin,
        crossOrigin: false,
      }),
    )
  }

  /**
   * navigator.credentials.create with attestation "none": the RegistrationResponseJSON a browser
   * would send.
   */
  register(options: CreationOptions, o: CeremonyOverrides = {}) {
    const rpId = o.rpId ?? options.rp.id ?? new URL(this.origin).hostname
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const jwk = publicKey.export({ format: 'jwk' })
    // COSE_Key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y.
    const coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    )
    const credentialId = randomBytes(16)
    const counter = o.counter ?? 0
    const count = Buffer.alloc(4)
    count.writeUInt32BE(counter)
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credentialId.length)
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(o, FLAG.AT)]),
      count,
      Buffer.alloc(16),
      idLength,
      credentialId,
      coseKey,
    ])
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    )
    const stored: StoredCredential = {
      id: b64url(credentialId),
      privateKey,
      userHandle: options.user.id,
      counter,
      backupEligible: o.backupEligible ?? this.defaults.backupEligible ?? false,
      backedUp: o.backedUp ?? this.defaults.backedUp ?? false,
    }
    this.credentials.push(stored)
    return {
      id: stored.id,
      rawId: stored.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, o)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    }
  }

  /**
   * navigator.credentials.get: the AuthenticationResponseJSON for `credential` (default: the last
   * registered).
   */
  assert(
    options: RequestOptions,
    o: CeremonyOverrides & { credential?: StoredCredential; withUserHandle?: boolean } = {},
  ) {
    const credential = o.credential ?? this.credentials.at(-1)!
    const rpId = o.rpId ?? options.rpId ?? new URL(this.origin).hostname
    const counter = o.counter ?? credential.counter + 1
    credential.counter = Math.max(credential.counter, counter)
    const count = Buffer.alloc(4)
    count.writeUInt32BE(counter)
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(o, 0, credential)]),
      count,
    ])
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, o)
    const signature = createSign('sha256')
      .update(Buffer.concat([authData, sha256(clientDataJSON)]))
      .sign(credential.privateKey)
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...((o.withUserHandle ?? true) && { userHandle: credential.userHandle }),
      },
    }
  }
}
