import { Type, type Static } from '@sinclair/typebox'
import { Body, Email, Secret } from '../../lib/schema-types.js'

export const ChangeEmailBody = Body({
  email: Email(),
  password: Type.Optional(Secret()),
})
export type ChangeEmailBody = Static<typeof ChangeEmailBody>

export const VerifyEmailBody = Body({ token: Secret(256) })
export type VerifyEmailBody = Static<typeof VerifyEmailBody>

/**
 * What the verification page needs: the address now in use. The route is public — whoever holds
 * the link — so it answers nothing else about the account.
 */
export const EmailVerifiedView = Type.Object(
  { email: Type.String({ description: 'The address the account uses from now on' }) },
  { additionalProperties: false },
)
export type EmailVerifiedView = Static<typeof EmailVerifiedView>
