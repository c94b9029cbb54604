import { Type, type Static } from '@sinclair/typebox'
import { Body, Email, Secret } from '../../lib/schema-types.js'

export const ChangeEmailBody = Body({
  email: Email(),
  password: Type.Optional(Secret()),
})
export type ChangeEmailBody = Static<typeof ChangeEmailBody>

export const VerifyEmailBody = Body({ token: Secret(256) })
export type VerifyEmailBody = Static<typeof VerifyEmailBody>
