import { Type, type Static } from '@sinclair/typebox'
import {
  Body,
  DisplayText,
  Email,
  Nullable,
  PageOf,
  PageQuery,
  PathId,
  Text,
  Timestamp,
} from '../../lib/schema-types.js'

const TeamName = DisplayText({ minLength: 1, maxLength: 100 })
const Description = Nullable(DisplayText({ minLength: 1, maxLength: 500 }))

/** docs/API.md#teams. */
export const TeamView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  member_count: Type.Integer({ minimum: 0 }),
  created_at: Timestamp(),
})
export type TeamView = Static<typeof TeamView>

export const TeamPage = PageOf(TeamView)

export const CreateTeamBody = Body({ name: TeamName, description: Type.Optional(Description) })
export type CreateTeamBody = Static<typeof CreateTeamBody>

export const UpdateTeamBody = Body(
  { name: Type.Optional(TeamName), description: Type.Optional(Description) },
  { minProperties: 1 },
)
export type UpdateTeamBody = Static<typeof UpdateTeamBody>

export const TeamMemberView = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  added_at: Timestamp(),
})
export type TeamMemberView = Static<typeof TeamMemberView>

export const TeamMemberPage = PageOf(TeamMemberView)

/** Exactly one of the two (checked by the service, which says so in `details`). */
export const AddTeamMemberBody = Body({
  user_id: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
  email: Type.Optional(Email()),
})
export type AddTeamMemberBody = Static<typeof AddTeamMemberBody>

export const TeamMemberParams = Type.Object({
  id: PathId(),
  user_id: PathId(),
})
export type TeamMemberParams = Static<typeof TeamMemberParams>

/** `member_id` lists the teams one person belongs to (their user page shows them). */
export const TeamsQuery = Type.Object(
  {
    ...PageQuery.properties,
    member_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Only the teams this user is a member of',
      }),
    ),
  },
  { additionalProperties: false },
)
export type TeamsQuery = Static<typeof TeamsQuery>
