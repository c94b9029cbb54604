import { Type, type Static } from '@sinclair/typebox'
import { Nullable, Timestamp } from '../../lib/schema-types.js'

const Base64Hash = () =>
  Type.String({
    pattern: '^[A-Za-z0-9+/]{43}=$',
    description: 'A SHA-256 hash, base64 (RFC 4648 §4)',
  })
const TreeSize = (description: string) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description })

export const CheckpointView = Type.Object({
  origin: Type.String({
    description: "The log's name: the instance's public host and path, then /audit-log",
    examples: ['sso.example.com/audit-log'],
  }),
  tree_size: TreeSize('How many events (leaves) the checkpoint covers'),
  root_hash: Base64Hash(),
  note: Type.String({
    description:
      'The checkpoint as a C2SP signed note (c2sp.org/tlog-checkpoint): origin, size, root hash, a blank line, the Ed25519 signature line',
  }),
  created_at: Timestamp(),
})
export type CheckpointView = Static<typeof CheckpointView>

export const InclusionProofQuery = Type.Object(
  {
    leaf_index: TreeSize('The leaf (event) number, from 0'),
    tree_size: TreeSize('The tree size to prove against: at most the current size'),
  },
  { additionalProperties: false },
)
export type InclusionProofQuery = Static<typeof InclusionProofQuery>

export const InclusionProofView = Type.Object({
  leaf_index: Type.Integer(),
  tree_size: Type.Integer(),
  leaf_hash: Base64Hash(),
  root_hash: Base64Hash(),
  proof: Type.Array(Base64Hash(), {
    description: 'RFC 9162 §2.1.3 inclusion path, leaf side first',
  }),
})
export type InclusionProofView = Static<typeof InclusionProofView>

export const ConsistencyProofQuery = Type.Object(
  {
    first: TreeSize('The earlier tree size'),
    second: TreeSize('The later tree size: at most the current size'),
  },
  { additionalProperties: false },
)
export type ConsistencyProofQuery = Static<typeof ConsistencyProofQuery>

export const ConsistencyProofView = Type.Object({
  first: Type.Integer(),
  second: Type.Integer(),
  first_root_hash: Base64Hash(),
  second_root_hash: Base64Hash(),
  proof: Type.Array(Base64Hash(), { description: 'RFC 9162 §2.1.4 consistency proof' }),
})
export type ConsistencyProofView = Static<typeof ConsistencyProofView>

export const IntegrityView = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('unchecked')], {
    description:
      'The last integrity check of the database against its signed checkpoints (at start, hourly, or on request)',
  }),
  checked_at: Nullable(Timestamp()),
  problem: Nullable(
    Type.String({ description: 'The first bad entry and why, when the check failed' }),
  ),
  tree_size: Nullable(Type.Integer({ description: 'Leaves the last check covered' })),
  verifier_key: Type.String({
    description: 'The signed-note verifier key that checks every checkpoint (public)',
  }),
  anchored_at: Nullable(Timestamp()),
  anchor_webhook_url: Nullable(
    Type.String({
      description: 'Where the daily checkpoint is POSTed besides the mail to administrators',
    }),
  ),
})
export type IntegrityView = Static<typeof IntegrityView>

export const VerifierKeyView = Type.Object({
  origin: Type.String(),
  verifier_key: Type.String({
    description:
      'C2SP signed-note verifier key: <name>+<key hash hex>+<base64(0x01 ‖ Ed25519 public key)>',
  }),
  previous_verifier_keys: Type.Array(
    Type.Object({
      verifier_key: Type.String(),
      until_tree_size: Type.Integer({
        description:
          'The size of the checkpoint signed by this key and its successor (the key rotation); this key signed the sizes up to it',
      }),
    }),
    {
      description:
        'Keys the log was signed with before signing-key rotations, oldest first: they check the older checkpoints',
    },
  ),
})
export type VerifierKeyView = Static<typeof VerifierKeyView>

export const AnchorBody = Type.Object(
  {
    webhook_url: Nullable(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        format: 'uri',
        description: 'An http(s) URL, or null for mail only',
      }),
    ),
  },
  { additionalProperties: false },
)
export type AnchorBody = Static<typeof AnchorBody>
