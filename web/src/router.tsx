/**
 * Every console URL. Signed-out pages (setup, sign-in, second step, mailed links) sit at the root;
 * everything else sits in the shell, which requires a signed-in user and loads lazily.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Outlet,
  redirect,
} from '@tanstack/react-router'
import { type ComponentType } from 'react'
import { loadAreas, loadSignedInCatalogues } from './i18n/i18n'
import { ApiError } from './api/errors'
import { meQuery, mfaStatusQuery } from './api/queries'
import { ENROLLMENT_PAGE } from './policy/enrollment'
import { LoginPage } from './auth/LoginPage'
import { takeRememberedReturnTo } from './auth/return-to'
import type { LinksSearch } from './links/queries'
import { SessionPreferences } from './shell/SessionPreferences'
import { ErrorPage, NotFoundPage } from './shell/StatusPages'
import { focusNextHeading } from './ui/page'

/**
 * The query cache (TanStack Query) is not part of the sign-in page's chunk. Loaders and
 * guards load it here; lazily loaded pages that use it are wrapped in its provider by
 * `withQueries`.
 */
const loadQueryClient = () => import('./api/query-client').then((module) => module.queryClient)

function withQueries<Module extends Record<string, unknown>>(
  load: () => Promise<Module>,
  name: keyof Module & string,
) {
  return lazyRouteComponent(async () => {
    const [{ QueryRoot }, module] = await Promise.all([import('./api/query-root'), load()])
    const Page = module[name] as ComponentType
    return {
      default: () => (
        <QueryRoot>
          <Page />
        </QueryRoot>
      ),
    }
  })
}

const optionalString = (value: unknown) =>
  typeof value === 'string' && value !== '' ? value : undefined
const positiveInteger = (value: unknown) => {
  const number = Number(value)
  return Number.isSafeInteger(number) && number > 0 ? number : undefined
}

/** Every page, with the signed-in person's language and theme when there is a session. */
function RootLayout() {
  return (
    <>
      <SessionPreferences />
      <Outlet />
    </>
  )
}

const rootRoute = createRootRoute({
  component: RootLayout,
  notFoundComponent: NotFoundPage,
  errorComponent: ErrorPage,
})

const setupRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/setup',
  component: lazyRouteComponent(() => import('./auth/SetupPage'), 'SetupPage'),
})

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
  validateSearch: (search: Record<string, unknown>): { return_to?: string } => ({
    return_to: optionalString(search.return_to),
  }),
  beforeLoad: () => loadAreas(['passkeys']),
  component: lazyRouteComponent(() => import('./auth/MfaPage'), 'MfaPage'),
})

const tokenSearch = (search: Record<string, unknown>): { token?: string } => ({
  token: optionalString(search.token),
})

const verifyEmailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/verify-email',
  validateSearch: tokenSearch,
  beforeLoad: loadSignedInCatalogues,
  component: withQueries(() => import('./landing/VerifyEmailPage'), 'VerifyEmailPage'),
})

// Password recovery: the "forgot" form and the page a reset link opens.
const forgotPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/forgot-password',
  beforeLoad: loadSignedInCatalogues,
  component: withQueries(() => import('./recovery/ForgotPasswordPage'), 'ForgotPasswordPage'),
})

const resetPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password',
  validateSearch: tokenSearch,
  beforeLoad: loadSignedInCatalogues,
  component: withQueries(() => import('./recovery/ResetPasswordPage'), 'ResetPasswordPage'),
})

const invitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/invitations/accept',
  validateSearch: tokenSearch,
  beforeLoad: loadSignedInCatalogues,
  component: withQueries(() => import('./landing/InvitationPage'), 'InvitationPage'),
})

/** The signed-in frame: a 401 sends the person to sign in and back here afterwards. */
const shellRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'shell',
  beforeLoad: async ({ location }) => {
    try {
      const queryClient = await loadQueryClient()
      const [user] = await Promise.all([
        queryClient.ensureQueryData(meQuery),
        loadSignedInCatalogues(),
      ])
      // While the two-factor policy restricts the session, only enrolment is reachable.
      const mfa = await queryClient.ensureQueryData(mfaStatusQuery)
      if (mfa.enrollment_required && location.pathname !== ENROLLMENT_PAGE) {
        // TanStack Router's redirect is thrown by design.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw redirect({ to: ENROLLMENT_PAGE })
      }
      return { user }
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        // TanStack Router's redirect is thrown by design.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw redirect({ to: '/login', search: { return_to: location.href } })
      }
      throw error
    }
  },
  component: withQueries(() => import('./shell/AppShell'), 'AppShell'),
})

/**
 * The signed-in home is the Links page — unless an identity provider's sign-in just landed here and
 * the page it started from asked to come back (an invitation, say).
 */
const homeRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/',
  beforeLoad: () => {
    const remembered = takeRememberedReturnTo()
    // A go-link is a server page.
    if (remembered?.startsWith('/go/')) window.location.assign(remembered)
    // TanStack Router's redirect is thrown by design.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    throw remembered === null || remembered.startsWith('/go/')
      ? redirect({ to: '/links', replace: true })
      : redirect({ href: remembered, replace: true })
  },
})

// --- Links area: the signed-in home, import/export, the browser keyword, go-link preferences.
const linksRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/links',
  validateSearch: (search: Record<string, unknown>): LinksSearch => ({
    q: optionalString(search.q),
    tag: optionalString(search.tag),
    owner: optionalString(search.owner),
    collection: optionalString(search.collection),
    cursor: optionalString(search.cursor),
    from: positiveInteger(search.from),
    new: search.new === true || search.new === 'true' ? true : undefined,
    // The /go miss page's "Create go/<slug>" fills the dialog's slug.
    slug: optionalString(search.slug),
    edit: optionalString(search.edit),
    sort: search.sort === 'clicks' ? 'clicks' : undefined,
  }),
  component: lazyRouteComponent(() => import('./links/LinksPage'), 'LinksPage'),
})

// Links deleted in the last 30 days, restorable.
const recentlyDeletedRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/links/deleted',
  component: lazyRouteComponent(() => import('./links/RecentlyDeletedPage'), 'RecentlyDeletedPage'),
})

const importExportRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/links/import-export',
  component: lazyRouteComponent(() => import('./links/ImportExportPage'), 'ImportExportPage'),
})

const goKeywordRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/links/go-keyword',
  component: lazyRouteComponent(() => import('./links/GoKeywordPage'), 'GoKeywordPage'),
})

const goPreferencesRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/links/preferences',
  component: lazyRouteComponent(() => import('./links/PreferencesPage'), 'PreferencesPage'),
})
// --- end of the Links area

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
 * Organizations: the list, one organization, its billing. The address names an organization by its
 * slug (`/orgs/acme`); an address by id, as older links have it, is redirected to the slug's. The
 * loaders fetch the organization first: an unknown one is the not-found page.
 */
const orgsRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/orgs',
  component: lazyRouteComponent(() => import('./orgs/OrgsPage'), 'OrgsPage'),
})
const organizationLoader =
  (to: '/orgs/$org' | '/orgs/$org/billing') =>
  async ({ params, location }: { params: { org: string }; location: { search: object } }) => {
    const [queryClient, { loadOrganization }] = await Promise.all([
      loadQueryClient(),
      import('./orgs/queries'),
    ])
    return loadOrganization(queryClient, params.org, to, location.search)
  }
const orgRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/orgs/$org',
  loader: organizationLoader('/orgs/$org'),
  component: lazyRouteComponent(() => import('./orgs/OrgPage'), 'OrgPage'),
})
const orgBillingRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/orgs/$org/billing',
  validateSearch: (
    search: Record<string, unknown>,
  ): { checkout?: 'success' | 'cancelled'; plan?: string } => ({
    checkout:
      search.checkout === 'success' || search.checkout === 'cancelled'
        ? search.checkout
        : undefined,
    plan: optionalString(search.plan),
  }),
  loader: organizationLoader('/orgs/$org/billing'),
  component: lazyRouteComponent(() => import('./orgs/BillingPage'), 'BillingPage'),
})

/**
 * Administration: every page below /admin is for administrators; anyone else
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
    // TanStack Router's redirect is thrown by design.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    throw redirect({ to: '/admin/users', replace: true })
  },
})

const cursorSearch = (search: Record<string, unknown>): { cursor?: string } => ({
  cursor: optionalString(search.cursor),
})

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

// SCIM provisioning.
const adminProvisioningRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/provisioning',
  component: lazyRouteComponent(() => import('./admin/AdminRoutes'), 'ProvisioningPage'),
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

// The personal security log.
const activityRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/account/activity',
  validateSearch: (search: Record<string, unknown>): { cursor?: string } => ({
    cursor: optionalString(search.cursor),
  }),
  component: lazyRouteComponent(() => import('./security-log/ActivityPage'), 'ActivityPage'),
})

const routeTree = rootRoute.addChildren([
  setupRoute,
  loginRoute,
  mfaRoute,
  verifyEmailRoute,
  invitationRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
  shellRoute.addChildren([
    homeRoute,
    linksRoute,
    recentlyDeletedRoute,
    importExportRoute,
    goKeywordRoute,
    goPreferencesRoute,
    profileRoute,
    securityRoute,
    tokensRoute,
    orgsRoute,
    orgRoute,
    orgBillingRoute,
    activityRoute,
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
      adminProvisioningRoute,
      adminAuditRoute,
    ]),
  ]),
])

export function createConsoleRouter() {
  const router = createRouter({ routeTree, defaultPreload: 'intent', scrollRestoration: true })
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
