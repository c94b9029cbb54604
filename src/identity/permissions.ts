/**
 * What an API token may do: permissions `<area>:read` and `<area>:write` (write implies read), and
 * the one table that names, for every operation of the API, the permission a token needs — or
 * marks it public (no credentials) or session-only (never a token: what manages account security,
 * but for the second factor's changes that carry their own proofs). The authentication hook
 * enforces it (hook.ts), the OpenAPI document states it on each operation (the scope of the bearer
 * security requirement, RFC 6750 bearer tokens, OpenAPI 3.1 §4.8.30: scopes on a non-OAuth scheme
 * name the roles required), and a test fails when an operation has no entry. An operation missing
 * from the table refuses every token.
 *
 * Checking a permission is a lookup in a set parsed once per token row: no query.
 */

/**
 * The one list of areas. The console follows it through the OpenAPI document's permission enum
 * (schemas.ts): after `npm run api-types`, its token form fails the type-check until it names every
 * area (web/src/account/token-catalogue.ts), and so do the browser tests' tokens.
 */
export const TOKEN_AREAS = [
  'profile',
  'links',
  'organizations',
  'billing',
  'admin.users',
  'admin.teams',
  'admin.settings',
  'admin.audit',
  'admin.identity_providers',
] as const
export type TokenArea = (typeof TOKEN_AREAS)[number]

/**
 * Changing the account's second factor with its proofs (confirming an enrolment, new backup codes,
 * turning TOTP off). Write only, never implied: a legacy (full-access) token does not hold it, and
 * the token form shows it with a warning. The operations still ask for their proofs, so the
 * permission alone changes nothing.
 */
export const ACCOUNT_SECURITY_WRITE = 'account.security:write'

export type TokenPermission = `${TokenArea}:${'read' | 'write'}` | typeof ACCOUNT_SECURITY_WRITE

export const TOKEN_PERMISSIONS: readonly TokenPermission[] = [
  ...TOKEN_AREAS.flatMap((area) => [`${area}:read` as const, `${area}:write` as const]),
  ACCOUNT_SECURITY_WRITE,
]

/** Whether a legacy token (no stored permissions, full access) holds this permission. */
export function legacyTokenHolds(permission: TokenPermission): boolean {
  return permission !== ACCOUNT_SECURITY_WRITE
}

/**
 * Administrators' areas: only an administrator mints them, and they lapse while the owner is not
 * one.
 */
export function isAdminPermission(permission: string): boolean {
  return permission.startsWith('admin.')
}

/**
 * `public`: no credentials; `session`: an interactive session only (403 SESSION_REQUIRED to any
 * token).
 */
export type OperationAccess = 'public' | 'session' | TokenPermission

/**
 * Every operation by its operationId. Keep the areas together; a new operation needs a line here.
 */
export const OPERATION_ACCESS: Readonly<Record<string, OperationAccess>> = {
  // Public: no credentials at all.
  getMetrics: 'public',
  getOpenSearchDescription: 'public',
  getHealth: 'public',
  getReadiness: 'public',
  getSetupStatus: 'public',
  completeSetup: 'public',
  previewInvitation: 'public',
  signUpWithInvitation: 'public',
  login: 'public',
  verifyMfa: 'public',
  beginPasskeyMfa: 'public',
  verifyPasskeyMfa: 'public',
  beginPasskeySignIn: 'public',
  signInWithPasskey: 'public',
  verifyEmailChange: 'public',
  listSignInProviders: 'public',
  startOidcSignIn: 'public',
  completeOidcSignIn: 'public',
  receiveStripeWebhook: 'public',
  // Password recovery: the link is the credential.
  getPasswordResetAvailability: 'public',
  requestPasswordReset: 'public',
  inspectPasswordReset: 'public',
  completePasswordReset: 'public',

  // Account security: an interactive session only, whatever a token carries.
  logout: 'session',
  getCsrfToken: 'session',
  reauthenticate: 'session',
  deleteCurrentUser: 'session',
  getPasswordStatus: 'session',
  changePassword: 'session',
  requestEmailChange: 'session',
  listSessions: 'session',
  revokeSession: 'session',
  beginMfaEnrollment: 'session',
  cancelMfaEnrollment: 'session',
  listPasskeys: 'session',
  beginPasskeyRegistration: 'session',
  completePasskeyRegistration: 'session',
  renamePasskey: 'session',
  deletePasskey: 'session',
  beginPasskeyProof: 'session',
  createApiToken: 'session',
  listApiTokens: 'session',
  revokeApiToken: 'session',
  getApiTokenPolicy: 'session',
  listMyIdentities: 'session',
  linkMyIdentity: 'session',
  unlinkMyIdentity: 'session',
  getNotificationPreferences: 'session',
  updateNotificationPreferences: 'session',
  listSecurityEvents: 'session',

  // The second factor's changes that carry their own proofs (a code, and the password if any).
  confirmMfaEnrollment: ACCOUNT_SECURITY_WRITE,
  disableMfa: ACCOUNT_SECURITY_WRITE,
  regenerateBackupCodes: ACCOUNT_SECURITY_WRITE,

  // profile: the current user and its non-credential fields, and whether MFA is on (no secret).
  getCurrentUser: 'profile:read',
  updateCurrentUser: 'profile:write',
  getMfaStatus: 'profile:read',

  // links: links, tags, go-link preferences, import/export.
  listLinks: 'links:read',
  countLinks: 'links:read',
  getLinkClicks: 'links:read',
  getLink: 'links:read',
  checkLinkSlug: 'links:read',
  findDuplicateLinks: 'links:read',
  listShareableTeams: 'links:read',
  exportLinks: 'links:read',
  getAiSuggestionsConfig: 'links:read',
  listTags: 'links:read',
  getTag: 'links:read',
  listGoPreferences: 'links:read',
  createLink: 'links:write',
  updateLink: 'links:write',
  deleteLink: 'links:write',
  listDeletedLinks: 'links:read',
  previewGoLink: 'links:read',
  restoreLink: 'links:write',
  transferLink: 'links:write',
  listLinkTransferOffers: 'links:read',
  acceptLinkTransferOffer: 'links:write',
  declineLinkTransferOffer: 'links:write',
  cancelLinkTransferOffer: 'links:write',
  bulkLinks: 'links:write',
  pinLink: 'links:write',
  unpinLink: 'links:write',
  listCollections: 'links:read',
  getCollection: 'links:read',
  createCollection: 'links:write',
  updateCollection: 'links:write',
  deleteCollection: 'links:write',
  setCollectionLinks: 'links:write',
  fetchLinkTitle: 'links:write',
  suggestLinkDetails: 'links:write',
  suggestLinkTags: 'links:write',
  importLinks: 'links:write',
  importLinkFile: 'links:write',
  createTag: 'links:write',
  updateTag: 'links:write',
  updateTagByPut: 'links:write',
  deleteTag: 'links:write',
  setGoPreference: 'links:write',
  deleteGoPreference: 'links:write',

  // organizations: organizations, members, invitations.
  listOrganizations: 'organizations:read',
  getOrganization: 'organizations:read',
  listOrganizationMembers: 'organizations:read',
  listInvitations: 'organizations:read',
  listMyInvitations: 'organizations:read',
  createOrganization: 'organizations:write',
  updateOrganization: 'organizations:write',
  deleteOrganization: 'organizations:write',
  addOrganizationMember: 'organizations:write',
  changeOrganizationMemberRole: 'organizations:write',
  removeOrganizationMember: 'organizations:write',
  createInvitation: 'organizations:write',
  resendInvitation: 'organizations:write',
  revokeInvitation: 'organizations:write',
  acceptMyInvitation: 'organizations:write',
  declineMyInvitation: 'organizations:write',
  acceptInvitation: 'organizations:write',

  listBillingPlans: 'billing:read',
  createCheckoutSession: 'billing:write',

  // Administrators' areas.
  listUsers: 'admin.users:read',
  getUser: 'admin.users:read',
  createUser: 'admin.users:write',
  updateUser: 'admin.users:write',
  deleteUser: 'admin.users:write',
  resetUserMfa: 'admin.users:write',
  // Mailed to the account's own address, as the administrator's console does.
  mailPasswordResetLink: 'admin.users:write',
  // Like setting the password (updateUser), it also asks for the administrator's own proof.
  createPasswordResetLink: 'admin.users:write',
  listTeams: 'admin.teams:read',
  getTeam: 'admin.teams:read',
  listTeamMembers: 'admin.teams:read',
  createTeam: 'admin.teams:write',
  updateTeam: 'admin.teams:write',
  deleteTeam: 'admin.teams:write',
  addTeamMember: 'admin.teams:write',
  removeTeamMember: 'admin.teams:write',
  // SCIM credentials: whoever holds one provisions and removes accounts, as admin.users does.
  listScimCredentials: 'admin.users:read',
  // Credential-equivalent: the administrator's session and proof (admin/reauth.ts).
  createScimCredential: 'session',
  revokeScimCredential: 'admin.users:write',
  listScimRequests: 'admin.users:read',
  listSettings: 'admin.settings:read',
  getSetting: 'admin.settings:read',
  getSmtpSettings: 'admin.settings:read',
  getAiSettings: 'admin.settings:read',
  listAiModels: 'admin.settings:read',
  getTwoFactorPolicy: 'admin.settings:read',
  getGoLinkSettings: 'admin.settings:read',
  getSignUpSettings: 'admin.settings:read',
  getApiTokenSettings: 'admin.settings:read',
  putSetting: 'admin.settings:write',
  deleteSetting: 'admin.settings:write',
  updateSmtpSettings: 'admin.settings:write',
  sendSmtpTestMail: 'admin.settings:write',
  updateAiSettings: 'admin.settings:write',
  updateTwoFactorPolicy: 'admin.settings:write',
  updateGoLinkSettings: 'admin.settings:write',
  updateSignUpSettings: 'admin.settings:write',
  updateApiTokenSettings: 'admin.settings:write',
  getChecklist: 'admin.settings:read',
  updateChecklist: 'admin.settings:write',
  listAuditEvents: 'admin.audit:read',
  exportAuditEvents: 'admin.audit:read',
  // The audit log's proofs.
  getAuditCheckpoint: 'admin.audit:read',
  getAuditInclusionProof: 'admin.audit:read',
  getAuditConsistencyProof: 'admin.audit:read',
  getAuditVerifierKey: 'admin.audit:read',
  getAuditIntegrity: 'admin.audit:read',
  checkAuditIntegrity: 'admin.audit:write',
  setAuditAnchoring: 'admin.audit:write',
  listOidcProviders: 'admin.identity_providers:read',
  getOidcProvider: 'admin.identity_providers:read',
  // Credential-equivalent, as a SCIM credential; so is a change of issuer or trust (the service).
  createOidcProvider: 'session',
  updateOidcProvider: 'admin.identity_providers:write',
  updateOidcProviderByPut: 'admin.identity_providers:write',
  deleteOidcProvider: 'admin.identity_providers:write',
  // It makes an outbound request on the administrator's behalf, so it needs the write permission.
  checkOidcProvider: 'admin.identity_providers:write',
}

/**
 * Operations whose path parameter `id` names an organization: a token whose boundary leaves it out
 * gets 404, as a non-member would (the listing and the links filter themselves; links/service.ts).
 */
export const ORGANIZATION_IN_PATH: ReadonlySet<string> = new Set([
  'getOrganization',
  'updateOrganization',
  'deleteOrganization',
  'listOrganizationMembers',
  'addOrganizationMember',
  'changeOrganizationMemberRole',
  'removeOrganizationMember',
  'createInvitation',
  'listInvitations',
  'resendInvitation',
  'revokeInvitation',
])

/** The access an operation declares; undefined when the table has no entry (tokens are refused). */
export function operationAccess(operationId: string | undefined): OperationAccess | undefined {
  return operationId === undefined ? undefined : OPERATION_ACCESS[operationId]
}

/**
 * The set a token's stored permissions grant, with write implying read. Parsed once per token row
 * read (the row cache shares it), so the per-request check is `set.has(permission)`.
 */
export function grantedSet(permissions: readonly string[]): ReadonlySet<string> {
  const granted = new Set<string>()
  for (const permission of permissions) {
    granted.add(permission)
    if (permission.endsWith(':write')) granted.add(`${permission.slice(0, -':write'.length)}:read`)
  }
  return granted
}

/**
 * The smallest list meaning the same grant: `x:read` dropped where `x:write` is present; sorted.
 */
export function normalizePermissions(permissions: readonly string[]): TokenPermission[] {
  const set = new Set(permissions)
  return TOKEN_PERMISSIONS.filter(
    (p) => set.has(p) && !(p.endsWith(':read') && set.has(p.replace(/:read$/, ':write'))),
  )
}
