import { Type, type Static } from '@sinclair/typebox'
import {
  Body,
  Email,
  Nullable,
  PageOf,
  PageQuery,
  Secret,
  Text,
  Timestamp,
} from '../../lib/schema-types.js'
import { Language, Theme, UserName, UserView } from '../users/schemas.js'

/** A secret the acting administrator proves themselves with (never echoed, like Secret()). */
const Proof = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, description })

/** docs/API.md#the-user-object: the User with what administrators also see. */
export const AdminUserView = Type.Object(
  {
    ...UserView.properties,
    created_at: Timestamp(),
    updated_at: Timestamp(),
    disabled: Type.Boolean(),
    mfa_enabled: Type.Boolean(),
    last_login_at: Nullable(Timestamp()),
  },
  { additionalProperties: false },
)
export type AdminUserView = Static<typeof AdminUserView>

export const AdminUserPage = PageOf(AdminUserView)

/** The answer to creating a user: the account, and its welcome when created without a password. */
export const CreatedAdminUserView = Type.Composite([
  AdminUserView,
  Type.Object({
    welcome: Type.Union(
      [
        Type.Object({
          mail: Type.Union(
            [Type.Literal('sent'), Type.Literal('not_configured'), Type.Literal('failed')],
            { description: 'Whether the welcome mail went out' },
          ),
          link: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
            description: 'The set-your-password link to pass on when it was not mailed',
          }),
          expires_at: Timestamp(),
        }),
        Type.Null(),
      ],
      { description: 'null when the account was created with a password' },
    ),
  }),
])

export const AdminUserQuery = Type.Object(
  {
    ...PageQuery.properties,
    q: Type.Optional(
      Text({ minLength: 1, maxLength: 254, description: 'Part of the email or name, any case' }),
    ),
  },
  { additionalProperties: false },
)
export type AdminUserQuery = Static<typeof AdminUserQuery>

export const CreateAdminUserBody = Body({
  email: Email(),
  name: UserName,
  password: Type.Optional(Secret()),
  is_admin: Type.Optional(Type.Boolean()),
  current_password: Type.Optional(
    Proof(
      1024,
      "The acting administrator's own password: required (when they have one) to create an administrator",
    ),
  ),
  code: Type.Optional(
    Proof(
      64,
      "The acting administrator's TOTP or backup code: required with current_password when their MFA is on",
    ),
  ),
})
export type CreateAdminUserBody = Static<typeof CreateAdminUserBody>

export const UpdateAdminUserBody = Body(
  {
    email: Type.Optional(Email()),
    name: Type.Optional(UserName),
    is_admin: Type.Optional(Type.Boolean()),
    disabled: Type.Optional(Type.Boolean()),
    language: Type.Optional(Language),
    theme: Type.Optional(Theme),
    password: Type.Optional(Secret()),
    current_password: Type.Optional(
      Proof(
        1024,
        "The acting administrator's own password: required (when they have one) to change email, password, is_admin or disabled",
      ),
    ),
    code: Type.Optional(
      Proof(
        64,
        "The acting administrator's TOTP or backup code: required with current_password when their MFA is on",
      ),
    ),
  },
  { minProperties: 1 },
)
export type UpdateAdminUserBody = Static<typeof UpdateAdminUserBody>

/** The acting administrator's proof, as fields of a body that carries other fields too. */
export const AdminProofFields = {
  current_password: Type.Optional(
    Proof(1024, "The acting administrator's own password (when they have one)"),
  ),
  code: Type.Optional(
    Proof(64, "The acting administrator's TOTP or backup code, when their MFA is on"),
  ),
}

/** The acting administrator's proof for an MFA reset. */
export const AdminProofBody = Body(AdminProofFields)
export type AdminProofBody = Static<typeof AdminProofBody>
