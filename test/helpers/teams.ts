/** Teams and their members, made through the administrator's API like a client would. */
import { randomBytes } from 'node:crypto'
import type { TestContext } from './app.js'
import { bearer, createSignedInUser, type SignedIn, type TestUser } from './factories.js'

export async function createTeam(
  t: TestContext,
  adminToken: string,
  name = `Team ${randomBytes(4).toString('hex')}`,
): Promise<{ id: string; name: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/admin/teams',
    headers: bearer(adminToken),
    payload: { name },
  })
  if (response.statusCode !== 201)
    throw new Error(`team creation failed: ${response.statusCode} ${response.body}`)
  return response.json()
}

export async function addTeamMember(
  t: TestContext,
  adminToken: string,
  teamId: string,
  userId: string,
): Promise<void> {
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/admin/teams/${teamId}/members`,
    headers: bearer(adminToken),
    payload: { user_id: userId },
  })
  if (response.statusCode !== 201)
    throw new Error(`adding a team member failed: ${response.statusCode} ${response.body}`)
}

export async function removeTeamMember(
  t: TestContext,
  adminToken: string,
  teamId: string,
  userId: string,
): Promise<void> {
  const response = await t.app.inject({
    method: 'DELETE',
    url: `/api/admin/teams/${teamId}/members/${userId}`,
    headers: bearer(adminToken),
  })
  if (response.statusCode !== 204)
    throw new Error(`removing a team member failed: ${response.statusCode} ${response.body}`)
}

/**
 * An administrator and `count` other people, all signed in, and a team the administrator made
 * (named `name`, else a random name) with the people at the positions `members` in it.
 */
export async function createTeamWithPeople(
  t: TestContext,
  options: { count: number; members: readonly number[]; name?: string },
): Promise<{
  admin: TestUser & SignedIn
  people: Array<TestUser & SignedIn>
  team: { id: string; name: string }
}> {
  const [admin, ...people] = await Promise.all([
    createSignedInUser(t, { isAdmin: true }),
    ...Array.from({ length: options.count }, () => createSignedInUser(t)),
  ])
  const team = await createTeam(t, admin.token, options.name)
  for (const position of options.members)
    await addTeamMember(t, admin.token, team.id, people[position]!.user.id)
  return { admin, people, team }
}
