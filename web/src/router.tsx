/**
 * Every console URL. Signed-out pages (setup, sign-in, second step, mailed links) sit at the root;
 * everything else sits in the shell, which requires a signed-in user and loads lazily.
 */
import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, redirect } from '@tanstack/react-router'
import { ApiError } from './api/errors'
import { meQuery } from './api/queries'
import { LoginPage } from './auth/LoginPage'
import { MfaPage } from './auth/MfaPage'
import { SetupPage } from './auth/SetupPage'
import { RootLayout } from './shell/Preferences'
import { ErrorPage, NotFoundPage } from './shell/StatusPages'
import { focusNextHeading } from './ui/page'

interface RouterContext {
  queryClient: QueryClient
}

const optionalString = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  notFoundComponent: NotFoundPage,
  errorComponent: ErrorPage,
})

const setupRoute = createRoute({ getParentRoute: () => rootRoute, path: '/setup', component: SetupPage })

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: (search: Record<string, unknown>): { return_to?: string; error?: string } => ({
    return_to: optionalString(search.return_to),
    error: optionalString(search.error),
  }),
  component: LoginPage,
})

const mfaRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login/mfa',
  validateSearch: (search: Record<string, unknown>): { return_to?: string } => ({ return_to: optionalString(search.return_to) }),
  component: MfaPage,
})

const tokenSearch = (search: Record<string, unknown>): { token?: string } => ({ token: optionalString(search.token) })

const verifyEmailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/verify-email',
  validateSearch: tokenSearch,
  component: lazyRouteComponent(() => import('./landing/VerifyEmailPage'), 'VerifyEmailPage'),
})

const invitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/invitations/accept',
  validateSearch: tokenSearch,
  component: lazyRouteComponent(() => import('./landing/InvitationPage'), 'InvitationPage'),
})

/** The signed-in frame: a 401 sends the person to sign in and back here afterwards. */
const shellRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'shell',
  beforeLoad: async ({ context, location }) => {
    try {
      return { user: await context.queryClient.ensureQueryData(meQuery) }
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router's redirect is thrown by design
        throw redirect({ to: '/login', search: { return_to: location.href } })
      }
      throw error
    }
  },
  component: lazyRouteComponent(() => import('./shell/AppShell'), 'AppShell'),
})

const homeRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/',
  component: lazyRouteComponent(() => import('./shell/HomePage'), 'HomePage'),
})

const profileRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/account',
  component: lazyRouteComponent(() => import('./account/ProfilePage'), 'ProfilePage'),
})

const securityRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/account/security',
  component: lazyRouteComponent(() => import('./account/SecurityPage'), 'SecurityPage'),
})

const tokensRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/account/tokens',
  component: lazyRouteComponent(() => import('./account/TokensPage'), 'TokensPage'),
})

/**
 * Administration (issue 13, point 5): every page below /admin is for administrators; anyone else
 * who types such a URL gets the forbidden page (the API would refuse them anyway).
 */
const adminRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/admin',
  beforeLoad: ({ context }) => {
    const user = (context as { user?: { is_admin: boolean } }).user
    if (!user?.is_admin) throw new ApiError(403, 'FORBIDDEN', 'forbidden', [], null)
  },
})

const adminIndexRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/',
  beforeLoad: () => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router's redirect is thrown by design
    throw redirect({ to: '/admin/users', replace: true })
  },
})

const cursorSearch = (search: Record<string, unknown>): { cursor?: string } => ({ cursor: optionalString(search.cursor) })

const adminUsersRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/users',
  validateSearch: (search: Record<string, unknown>): { q?: string; cursor?: string } => ({
    q: optionalString(search.q),
    cursor: optionalString(search.cursor),
  }),
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'UsersRoute'),
})

const adminUserRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/users/$userId',
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'UserRoute'),
})

const adminTeamsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/teams',
  validateSearch: cursorSearch,
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'TeamsRoute'),
})

const adminTeamRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/teams/$teamId',
  validateSearch: cursorSearch,
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'TeamRoute'),
})

const adminSettingsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'SettingsPage'),
})

const adminProvidersRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/providers',
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'ProvidersPage'),
})

const adminNewProviderRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/providers/new',
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'NewProviderPage'),
})

const adminProviderRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/providers/$providerId',
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'ProviderRoute'),
})

const adminAuditRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/audit',
  validateSearch: (search: Record<string, unknown>) => ({
    action: optionalString(search.action),
    actor_id: optionalString(search.actor_id),
    since: optionalString(search.since),
    until: optionalString(search.until),
    cursor: optionalString(search.cursor),
  }),
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'AuditRoute'),
})

const routeTree = rootRoute.addChildren([
  setupRoute,
  loginRoute,
  mfaRoute,
  verifyEmailRoute,
  invitationRoute,
  shellRoute.addChildren([
    homeRoute,
    profileRoute,
    securityRoute,
    tokensRoute,
    adminRoute.addChildren([
      adminIndexRoute,
      adminUsersRoute,
      adminUserRoute,
      adminTeamsRoute,
      adminTeamRoute,
      adminSettingsRoute,
      adminProvidersRoute,
      adminNewProviderRoute,
      adminProviderRoute,
      adminAuditRoute,
    ]),
  ]),
])

export function createConsoleRouter(queryClient: QueryClient) {
  const router = createRouter({ routeTree, context: { queryClient }, defaultPreload: 'intent', scrollRestoration: true })
  router.subscribe('onBeforeNavigate', ({ fromLocation }) => {
    // The first load keeps the browser's own focus; later navigations announce the new page.
    if (fromLocation !== undefined) focusNextHeading()
  })
  return router
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createConsoleRouter>
  }
}
