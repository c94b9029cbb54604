import { Type, type Static } from '@sinclair/typebox'
import {
  Body,
  DisplayText,
  Email,
  PageOf,
  PathId,
  Secret,
  Timestamp,
} from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { ROLES, type Role } from './roles.js'

/** The 404 of every route under /api/organizations/{id}, with what else it may mean there. */
export const notAMember = (orElse?: string) =>
  errorResponse(
    `NOT_FOUND: no such organization, or you are not a member${orElse === undefined ? '' : `; or ${orElse}`}`,
  )

export const RoleSchema = Type.Unsafe<Role>({ type: 'string', enum: [...ROLES] })

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{1,62}$'

const Slug = Type.String({
  pattern: SLUG_PATTERN,
  'x-message': 'must be 2–63 lower-case letters, digits or dashes, starting with a letter or digit',
})
const OrganizationName = DisplayText({ minLength: 1, maxLength: 100 })

/** docs/API.md#organizations-and-invitations; `role` is the caller's role in the organization. */
export const OrganizationView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  plan: Type.String({ examples: ['free'] }),
  role: RoleSchema,
  created_at: Timestamp(),
})
export type OrganizationView = Static<typeof OrganizationView>

export const OrganizationPage = PageOf(OrganizationView)

export const CreateOrganizationBody = Body({
  name: OrganizationName,
  slug: Type.Optional(Slug),
})
export type CreateOrganizationBody = Static<typeof CreateOrganizationBody>

export const UpdateOrganizationBody = Body(
  { name: Type.Optional(OrganizationName), slug: Type.Optional(Slug) },
  { minProperties: 1 },
)
export type UpdateOrganizationBody = Static<typeof UpdateOrganizationBody>

export const MemberView = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  joined_at: Timestamp(),
})
export type MemberView = Static<typeof MemberView>

export const MemberPage = PageOf(MemberView)

export const AddMemberBody = Body({ email: Email(), role: RoleSchema })
export type AddMemberBody = Static<typeof AddMemberBody>

export const ChangeRoleBody = Body({ role: RoleSchema })
export type ChangeRoleBody = Static<typeof ChangeRoleBody>

export const MemberParams = Type.Object({
  id: PathId(),
  user_id: PathId(),
})
export type MemberParams = Static<typeof MemberParams>

export const InvitationView = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  expires_at: Timestamp(),
})
export type InvitationView = Static<typeof InvitationView>

const InvitationLink = (description: string) =>
  Type.String({
    format: 'uri',
    description: `${description} The same single-use link the mail carries, shown only to the organization's owners and admins.`,
    examples: [
      'https://switchboard.example.com/invitations/accept?token=1VJ2yQX5Yf0hZrN8mKq3Tb7cWdE4sUa9oPxLgHjRkIe',
    ],
  })

const InvitationMailState = Type.Union(
  [Type.Literal('sent'), Type.Literal('not_configured'), Type.Literal('failed')],
  {
    description:
      'Whether the invitation was mailed: sent; not_configured (no outgoing mail on this instance); failed (the SMTP server refused it, logged for the administrators). The invitation stands in every case.',
  },
)

export const InvitationListItem = Type.Composite([
  InvitationView,
  Type.Object({
    created_at: Timestamp(),
    link: Type.Union([InvitationLink('The invitation link to pass on.'), Type.Null()], {
      description: 'null for an invitation made before links were kept; a resend gives it one',
    }),
  }),
])
export type InvitationListItem = Static<typeof InvitationListItem>

/** The answer to creating an invitation (POST …/invitations and POST …/members). */
export const CreatedInvitationView = Type.Composite([
  InvitationView,
  Type.Object({
    link: InvitationLink('The invitation link to pass on.'),
    mail: InvitationMailState,
    sign_up: Type.Boolean({
      description:
        'Whether a person without an account can create one from the link; when false, they need an account first',
    }),
    replaced: Type.Union([Type.Object({ id: Type.String(), role: RoleSchema }), Type.Null()], {
      description:
        'The pending invitation to the same address that this one replaced (its link stopped working), with its role; null when none',
    }),
  }),
])

/** The answer to a resend: the invitation with its new link. */
export const ResentInvitationView = Type.Composite([
  InvitationView,
  Type.Object({
    created_at: Timestamp(),
    link: InvitationLink('The new link.'),
    mail: InvitationMailState,
  }),
])

export const InvitationPage = PageOf(InvitationListItem)

export const CreateInvitationBody = Body({ email: Email(), role: RoleSchema })
export type CreateInvitationBody = Static<typeof CreateInvitationBody>

export const InvitationParams = Type.Object({
  id: PathId(),
  invitation_id: PathId(),
})
export type InvitationParams = Static<typeof InvitationParams>

export const AcceptInvitationBody = Body({ token: Secret(256) })
export type AcceptInvitationBody = Static<typeof AcceptInvitationBody>

/** A pending invitation addressed to the caller (GET /api/invitations). */
export const ReceivedInvitationView = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  organization_name: Type.String(),
  organization_slug: Type.String(),
  role: RoleSchema,
  invited_by_name: Type.Union([Type.String(), Type.Null()], {
    description: 'null when the inviter was deleted since',
  }),
  created_at: Timestamp(),
  expires_at: Timestamp(),
})
export const ReceivedInvitationPage = PageOf(ReceivedInvitationView)

export const MyInvitationParams = Type.Object({
  invitation_id: Type.String({ minLength: 1, maxLength: 200 }),
})

/** POST /api/invitations/preview: what the link's holder sees before answering it. */
export const InvitationPreviewView = Type.Object({
  email: Type.String({ description: 'The invited address' }),
  organization_name: Type.String(),
  organization_slug: Type.String(),
  role: RoleSchema,
  invited_by_name: Type.Union([Type.String(), Type.Null()], {
    description: 'null when the inviter was deleted since',
  }),
  expires_at: Timestamp(),
  has_account: Type.Boolean({ description: 'Whether an account has the invited address' }),
  sign_up: Type.Boolean({
    description: 'Whether an account can be created from the link (POST /api/invitations/sign-up)',
  }),
})

export const SignUpSettingsView = Type.Object({
  through_invitation: Type.Boolean({
    description:
      'Whether a person invited to an organization can create their account from the link',
  }),
  updated_at: Type.Union([Timestamp(), Type.Null()]),
})

export const UpdateSignUpSettingsBody = Body({ through_invitation: Type.Boolean() })
export type UpdateSignUpSettingsBody = Static<typeof UpdateSignUpSettingsBody>
