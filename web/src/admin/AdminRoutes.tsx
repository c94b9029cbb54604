/**
 * The administration's pages as the router mounts them: one lazily loaded chunk for the area.
 * Path parameters and the query string (search, filters, cursor) are read here and handed down.
 */
import { getRouteApi } from '@tanstack/react-router'
import { AuditPage } from './AuditPage'
import { ProviderPage } from './ProviderPage'
import { TeamPage } from './TeamPage'
import { TeamsPage } from './TeamsPage'
import { UserPage } from './UserPage'
import { UsersPage } from './UsersPage'

export { NewProviderPage } from './ProviderPage'
export { ProvidersPage } from './ProvidersPage'
export { ProvisioningPage } from './ProvisioningPage'
export { SettingsPage } from './SettingsPage'

const usersRoute = getRouteApi('/shell/admin/users')
const userRoute = getRouteApi('/shell/admin/users/$userId')
const teamsRoute = getRouteApi('/shell/admin/teams')
const teamRoute = getRouteApi('/shell/admin/teams/$teamId')
const providerRoute = getRouteApi('/shell/admin/providers/$providerId')
const auditRoute = getRouteApi('/shell/admin/audit')

export function UsersRoute() {
  return <UsersPage search={usersRoute.useSearch()} />
}

export function UserRoute() {
  const { userId } = userRoute.useParams()
  return <UserPage key={userId} userId={userId} />
}

export function TeamsRoute() {
  return <TeamsPage cursor={teamsRoute.useSearch().cursor} />
}

export function TeamRoute() {
  const { teamId } = teamRoute.useParams()
  return <TeamPage key={teamId} teamId={teamId} cursor={teamRoute.useSearch().cursor} />
}

export function ProviderRoute() {
  const { providerId } = providerRoute.useParams()
  return <ProviderPage key={providerId} providerId={providerId} />
}

export function AuditRoute() {
  return <AuditPage search={auditRoute.useSearch()} />
}
