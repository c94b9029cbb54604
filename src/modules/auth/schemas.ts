import { Type, type Static } from '@sinclair/typebox'
import { Body, Email, PageOf, Nullable, Secret, Timestamp } from '../../lib/schema-types.js'
import { NewUserFields, UserView } from '../users/schemas.js'
import { FactorProof } from '../passkeys/schemas.js'
import { OrganizationView } from '../organizations/schemas.js'

export const SetupStatus = Type.Object({
  initialized: Type.Boolean(),
  setup_code_required: Type.Optional(
    Type.Boolean({
      description:
        'Whether POST /api/auth/setup from this address needs setup_code (while not initialized)',
    }),
  ),
})

export const SetupBody = Body({
  ...NewUserFields,
  password: Secret(),
  setup_code: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The code the server prints on its terminal (stderr) at start, or `switchboard setup-code`; needed unless the request comes from the machine itself',
    }),
  ),
})
export type SetupBody = Static<typeof SetupBody>

export const LoginBody = Body({ email: Email(), password: Secret() })
export type LoginBody = Static<typeof LoginBody>

export const SignInView = Type.Object({
  user: Type.Ref(UserView),
  token: Type.String({
    description: 'The access JWT; the same value is set in the `token` cookie',
  }),
  expires_at: Timestamp(),
})

export const MfaRequiredView = Type.Object({
  mfa_required: Type.Literal(true),
  mfa_token: Type.String({
    description: 'Single use; complete with POST /api/auth/mfa/verify within 5 minutes',
  }),
  expires_at: Timestamp(),
})

export const LoginResponse = Type.Union([SignInView, MfaRequiredView])

export const CsrfView = Type.Object({ csrf_token: Type.String() })

export const SessionView = Type.Object({
  id: Type.String(),
  created_at: Timestamp(),
  last_seen_at: Timestamp(),
  user_agent: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  sign_in_method: Nullable(
    Type.String({
      description:
        "How the session was signed in, as its auth.login event says: `password`, `passkey`, `setup`, or an identity provider's key, followed by `+totp`, `+backup_code` or `+passkey` after a second step; null for sessions older than this field",
    }),
  ),
  current: Type.Boolean({ description: 'True for the session making this request' }),
})

export const SessionPage = PageOf(SessionView)

/**
 * The proof that opens the re-authentication window (the password, and the second factor when there
 * is one).
 */
export const ReauthenticateBody = Body(FactorProof)
export type ReauthenticateBody = Static<typeof ReauthenticateBody>

export const ReauthenticationView = Type.Object({
  reauthenticated_until: Type.String({
    format: 'date-time',
    description:
      'Until then this session may make sensitive changes without a proof in the request',
  }),
})

export const InvitationSignUpBody = Body({
  token: Secret(256),
  name: NewUserFields.name,
  password: Secret(),
})
export type InvitationSignUpBody = Static<typeof InvitationSignUpBody>

export const InvitationSignUpView = Type.Object({
  user: Type.Ref(UserView),
  token: Type.String({
    description: 'The access JWT; the same value is set in the `token` cookie',
  }),
  expires_at: Timestamp(),
  organization: OrganizationView,
})
