/**
 * Table types as Kysely sees them. Timestamps are ISO-8601 UTC strings on both engines (the
 * PostgreSQL pool parses timestamptz into that form); booleans read back as 0/1 from SQLite, so
 * repos turn them into real booleans when they map rows (docs/API.md#conventions: never 0/1 on the
 * wire).
 */
import type { ColumnType, Insertable, Kysely, Transaction, Updateable } from 'kysely'

/** ISO-8601 UTC with milliseconds, as produced by Date#toISOString. */
export type Timestamp = string

/** A boolean column: written as boolean, read as boolean (PostgreSQL) or 0/1 (SQLite). */
export type SqlBool = ColumnType<boolean | 0 | 1, boolean, boolean>

export interface UsersTable {
  id: string
  email: string
  name: string
  user_key: string
  password_hash: string | null
  /** When password_hash was last written (null: no password, or set before migration 0032). */
  password_changed_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>
  is_admin: SqlBool
  disabled: SqlBool
  language: string
  theme: string
  ai_suggestions_enabled: SqlBool
  email_pending: string | null
  oidc_provider: string | null
  oidc_sub: string | null
  /** The issuer the identity was linked under: matched with oidc_sub at every sign-in. */
  oidc_issuer: string | null
  created_at: Timestamp
  updated_at: Timestamp
  last_login_at: Timestamp | null
  /** Whether a sign-in from a browser and system not seen before is mailed (default true). */
  notify_new_sign_in: ColumnType<boolean | 0 | 1, boolean | undefined, boolean>
}

export interface SessionsTable {
  id: string
  user_id: string
  created_at: Timestamp
  last_seen_at: Timestamp
  expires_at: Timestamp
  revoked_at: Timestamp | null
  user_agent: string | null
  ip: string | null
  /** A trusted identity provider reported (amr) that it checked a second factor. */
  idp_mfa: ColumnType<boolean | 0 | 1, boolean | undefined, boolean>
  /**
   * When the holder last proved who they are (sign-in or re-authentication); opens a 10-minute
   * window.
   */
  reauthenticated_at: Timestamp | null
  /** How the session was signed in, as its auth.login event's `method` (null before 0031). */
  sign_in_method: string | null
}

/** One row per instance-wide fact that must be established exactly once (e.g. first-run setup). */
export interface InstanceFlagsTable {
  name: string
  set_at: Timestamp
}

export interface AuditEventsTable {
  id: string
  at: Timestamp
  actor_id: string | null
  actor_email: string | null
  action: string
  target_type: string | null
  target_id: string | null
  ip: string | null
  /** JSON text: small, non-secret facts about the change (which fields, which role …). */
  metadata: string
  /**
   * Whose account the event concerns (the target user, else the actor): the personal security log.
   */
  subject_user_id: string | null
  user_agent: string | null
  /** The event's leaf in the audit Merkle tree (null only before it is written). */
  leaf_index: number | null
}

/** The hash (hex) of the perfect subtree of 2^level leaves starting at leaf idx·2^level. */
export interface AuditTreeNodesTable {
  level: number
  idx: number
  hash: string
}

export interface AuditTreeHeadTable {
  id: number
  size: number
  /** JSON list of hex hashes: the perfect subtrees that make up the tree, largest first. */
  frontier: string
  /**
   * Leaves whose nodes are stored (audit_tree_nodes); the rest are stored by the next checkpoint
   * (migration 0034).
   */
  materialized_size: number
}

export interface AuditCheckpointsTable {
  tree_size: number
  /** The C2SP signed note: the root hash is read from it, never from a copy beside it. */
  note: string
  created_at: Timestamp
}

export interface AuditMonitorTable {
  id: number
  checked_at: Timestamp | null
  check_ok: SqlBool | null
  check_problem: string | null
  checked_size: number | null
  anchored_at: Timestamp | null
  anchor_webhook_url: string | null
  /** Migration 0029: when the anchoring webhook last accepted the day's checkpoint. */
  anchor_posted_at: Timestamp | null
}

export interface ApiTokensTable {
  id: string
  user_id: string
  name: string
  prefix: string
  token_hash: string
  created_at: Timestamp
  last_used_at: Timestamp | null
  expires_at: Timestamp | null
  revoked_at: Timestamp | null
  /** JSON array of permissions; null = full access (legacy, before migration 0024). */
  permissions: string | null
  /** JSON array of organization ids the token may reach; null = all of the owner's. */
  organization_ids: string | null
  last_used_ip: string | null
}

/**
 * Time steps are small integers; PostgreSQL bigint comes back as a number through the pool's
 * parser.
 */
export interface MfaTotpTable {
  user_id: string
  secret_encrypted: string
  enabled_at: Timestamp
  last_used_step: number | null
}

export interface MfaPendingTable {
  user_id: string
  secret_encrypted: string
  created_at: Timestamp
  expires_at: Timestamp
}

export interface MfaBackupCodesTable {
  id: string
  user_id: string
  code_hash: string
  /** The code's first two characters (not secret on their own); null for codes made before 0014. */
  selector: string | null
  created_at: Timestamp
  used_at: Timestamp | null
}

export interface MfaChallengesTable {
  id: string
  user_id: string
  token_hash: string
  /** How the first factor was proven ('password', or the OIDC provider key). */
  method: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Timestamp | null
}

/**
 * A WebAuthn credential (migration 0018). `counter` is a bigint: a number through both drivers'
 * parsers.
 */
export interface PasskeysTable {
  id: string
  user_id: string
  /** base64url, unique on the instance. */
  credential_id: string
  /** The COSE public key, as bytes (Buffer from both drivers). */
  public_key: Uint8Array
  counter: number
  /** JSON array of the transports the authenticator reported (hints for the browser). */
  transports: string
  backup_eligible: SqlBool
  backed_up: SqlBool
  aaguid: string
  name: string
  created_at: Timestamp
  last_used_at: Timestamp | null
}

/**
 * A ceremony challenge: single use (`used_at`), expiring, bound to a session or sign-in attempt.
 */
export interface PasskeyChallengesTable {
  id: string
  /** `proof`: a registered passkey confirming an account change, bound to the session. */
  purpose: 'register' | 'mfa' | 'passwordless' | 'proof'
  binding: string
  user_id: string | null
  challenge: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Timestamp | null
}

/** Instance settings: generic keys, and the typed sections (`smtp`, `ai`) under reserved keys. */
export interface SettingsTable {
  key: string
  /** JSON text. Typed sections hold their secrets encrypted (lib/crypto.ts), never in clear. */
  value: string
  updated_at: Timestamp
  updated_by: string | null
}

/**
 * Pending email changes (docs/API.md#email-change): single-use, expiring, stored as a hash
 * only.
 */
export interface EmailVerificationsTable {
  id: string
  user_id: string
  email: string
  token_hash: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Timestamp | null
}

/** Password reset links: single-use, expiring, stored as a hash only. */
export interface PasswordResetsTable {
  id: string
  user_id: string
  token_hash: string
  /** Who asked: self, admin_mail, admin_link or cli. */
  via: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Timestamp | null
}

export interface OrganizationsTable {
  id: string
  name: string
  slug: string
  /** `free` until billing changes it (docs/API.md#billing). */
  plan: ColumnType<string, string | undefined, string>
  stripe_customer_id: ColumnType<string | null, string | null | undefined, string | null>
  /**
   * When the Stripe event that last set `plan` was created (older events arriving late are
   * ignored).
   */
  plan_event_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>
  created_at: Timestamp
  updated_at: Timestamp
}

/** `role` is one of the organization roles of modules/organizations/roles.ts. */
export interface OrganizationMembersTable {
  organization_id: string
  user_id: string
  role: string
  joined_at: Timestamp
}

export interface OrganizationInvitationsTable {
  id: string
  organization_id: string
  email: string
  role: string
  token_hash: string
  /** The token, encrypted (invitation links), so owners and admins can copy the link. */
  token_encrypted: string | null
  invited_by: string | null
  created_at: Timestamp
  expires_at: Timestamp
  accepted_at: Timestamp | null
  revoked_at: Timestamp | null
}

export interface TeamsTable {
  id: string
  name: string
  /** `name` lower-cased: the unique key (team names are unique ignoring case). */
  name_key: string
  description: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface TeamMembersTable {
  team_id: string
  user_id: string
  added_at: Timestamp
}

/** Identity providers for OIDC sign-in (docs/API.md#identity-providers). */
export interface OidcProvidersTable {
  id: string
  provider_key: string
  name: string
  issuer_url: string
  client_id: string
  /** Encrypted with the context `oidc_providers.client_secret:<id>`; null for a public client. */
  client_secret_encrypted: string | null
  /** Space-separated scopes, `openid` included. */
  scopes: string
  auto_create_users: SqlBool
  default_role: 'user' | 'admin'
  enabled: SqlBool
  /** Link existing accounts by verified email at first sign-in; never an administrator's. */
  trust_email: SqlBool
  /** An `amr` claim naming a second factor satisfies the two-factor policy. */
  trusts_mfa_amr: ColumnType<boolean | 0 | 1, boolean | undefined, boolean>
  created_at: Timestamp
  updated_at: Timestamp
}

/** Per-user labels for links (docs/API.md#tags). */
export interface TagsTable {
  id: string
  user_id: string
  name: string
  /** `name` lower-cased: the unique key per user (tag names are unique ignoring case). */
  name_key: string
  /** `#rrggbb`, lower-case. */
  color: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

/**
 * A link is personal (`user_id`) or shared with an organization (`organization_id`), never both.
 */
export interface LinksTable {
  id: string
  user_id: string | null
  organization_id: string | null
  /** Who created it; null once that user is deleted (a shared link stays with its organization). */
  created_by: string | null
  url: string
  title: string | null
  slug: string | null
  /** `slug` lower-cased: go-links match ignoring case. */
  slug_key: string | null
  /** The URL's duplicate key (lib/url-key.ts); the links repo writes it with every `url`. */
  url_key: ColumnType<string | null, string | undefined, string | undefined>
  forwarding_enabled: SqlBool
  created_at: Timestamp
  updated_at: Timestamp
  /**
   * Its clicks since `link_click_window.first_day` (links/recent-clicks.repo.ts keeps it), the
   * most-clicked order's key.
   */
  recent_clicks: ColumnType<number, number | undefined, number>
}

/** A user's tag on a link: each user sees only their own tags on a shared link. */
export interface LinkTagsTable {
  link_id: string
  tag_id: string
}

/**
 * How many links carry a tag, by the links' owner (`owner_id`: their organization, else their
 * person); triggers keep it on every write of `link_tags` and of a link's owner (migration 0122).
 */
export interface TagLinkCountsTable {
  tag_id: string
  owner_id: string
  link_count: number
}

/** A link shared with a team: its members see it, read-only. */
export interface LinkTeamsTable {
  link_id: string
  team_id: string
  /** The link's `slug_key`, kept equal (links/shares.repo.ts), for /go's probe by team and slug. */
  slug_key: string | null
  shared_at: Timestamp
}

/** A link one person pinned, for them alone. */
export interface LinkPinsTable {
  user_id: string
  link_id: string
  pinned_at: Timestamp
}

/** A person's (`user_id`) or an organization's (`organization_id`) ordered set of links. */
export interface CollectionsTable {
  id: string
  user_id: string | null
  organization_id: string | null
  created_by: string | null
  name: string
  description: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface CollectionLinksTable {
  collection_id: string
  link_id: string
  /** 0, 1, 2 … in the collection's order. */
  position: number
  /** The link's `slug_key`, kept equal (links/shares.repo.ts), for /go's probe. */
  slug_key: string | null
}

/** A collection shared with a team: its members see the collection and its links, read-only. */
export interface CollectionTeamsTable {
  collection_id: string
  team_id: string
}

/** Which link /go/{slug} opens for a user when several visible links share the slug. */
export interface GoPreferencesTable {
  user_id: string
  slug_key: string
  link_id: string
  updated_at: Timestamp
}

/** Clicks per link per UTC day. */
export interface LinkClicksTable {
  link_id: string
  /** YYYY-MM-DD, UTC. */
  day: string
  clicks: number
}

/** One row: the first UTC day the links' `recent_clicks` count. */
export interface LinkClickWindowTable {
  id: number
  first_day: string
}

/** A model's validated answer for one person, scope, URL and language (link suggestions). */
export interface LinkSuggestionCacheTable {
  user_id: string
  cache_key: string
  answer: string
  expires_at: Timestamp
}

/** Model calls for link suggestions per person per UTC hour (YYYY-MM-DDTHH). */
export interface LinkSuggestionCallsTable {
  user_id: string
  hour: string
  calls: number
}

/** A deleted link, restorable for 30 days; `snapshot` holds the rest as JSON. */
export interface LinkTransferOffersTable {
  id: string
  link_id: string
  from_user_id: string
  from_organization_id: string | null
  to_user_id: string
  link_updated_at: Timestamp
  created_at: Timestamp
  expires_at: Timestamp
}

export interface DeletedLinksTable {
  id: string
  user_id: string | null
  organization_id: string | null
  created_by: string | null
  deleted_by: string | null
  url: string
  title: string | null
  slug: string | null
  deleted_at: Timestamp
  snapshot: string
}

/** Stripe webhook events already processed (each event id is applied once). */
export interface BillingEventsTable {
  id: string
  type: string
  received_at: Timestamp
}

/** Per account, the browser-and-system classes it has signed in from (hashed). */
export interface KnownDevicesTable {
  user_id: string
  device_hash: string
  first_seen_at: Timestamp
  last_seen_at: Timestamp
}

/** Security notifications, queued in the changing transaction and sent in the background. */
export interface MailOutboxTable {
  id: string
  user_id: string | null
  recipient: string
  /** Which notification (notifications/templates.ts). */
  kind: string
  language: string
  /** JSON text: what the mail says (time, IP, browser, a name) — never a secret. */
  params: string
  /** pending → sent | failed (retries spent) | skipped (SMTP not configured: recorded only). */
  status: 'pending' | 'sent' | 'failed' | 'skipped'
  attempts: number
  created_at: Timestamp
  next_attempt_at: Timestamp
  finished_at: Timestamp | null
  last_error: string | null
}

/** SCIM credentials, stored as SHA-256 only. */
export interface ScimCredentialsTable {
  id: string
  name: string
  prefix: string
  token_hash: string
  created_at: Timestamp
  created_by: string | null
  last_used_at: Timestamp | null
  revoked_at: Timestamp | null
}

/** What SCIM knows about an account beyond the users table. */
export interface ScimUsersTable {
  user_id: string
  user_name: string
  user_name_lower: string
  external_id: string | null
  /** The SCIM credential that set external_id (null: set before externalIds were scoped). */
  external_id_scope: string | null
  given_name: string | null
  family_name: string | null
  /** family_name lower-cased as JavaScript does: what name.familyName filters compare. */
  family_name_lower: string | null
  /** name.formatted when it differs from the account's name. */
  formatted_name: string | null
  employee_number: string | null
  department: string | null
  manager_id: string | null
}

/**
 * The last SCIM requests: two rings of fixed rows, each rewritten by a later request of its ring
 * (migration 0119_scim_request_ring). A row not yet written has only its ring and position; every
 * other column is set by each write together. No body, query or secret.
 */
export interface ScimRequestsTable {
  ring: 'credentialed' | 'unauthenticated'
  position: number
  id: string | null
  created_at: Timestamp | null
  credential_id: string | null
  method: string | null
  path: string | null
  status: number | null
  scim_type: string | null
  duration_ms: number | null
  /** What a 409 uniqueness collided on (userName or displayName); null on every other row. */
  subject: string | null
}

export interface Database {
  users: UsersTable
  sessions: SessionsTable
  instance_flags: InstanceFlagsTable
  audit_events: AuditEventsTable
  audit_tree_nodes: AuditTreeNodesTable
  audit_tree_head: AuditTreeHeadTable
  audit_checkpoints: AuditCheckpointsTable
  audit_monitor: AuditMonitorTable
  api_tokens: ApiTokensTable
  mfa_totp: MfaTotpTable
  mfa_pending: MfaPendingTable
  mfa_backup_codes: MfaBackupCodesTable
  mfa_challenges: MfaChallengesTable
  passkeys: PasskeysTable
  passkey_challenges: PasskeyChallengesTable
  settings: SettingsTable
  email_verifications: EmailVerificationsTable
  password_resets: PasswordResetsTable
  organizations: OrganizationsTable
  organization_members: OrganizationMembersTable
  organization_invitations: OrganizationInvitationsTable
  teams: TeamsTable
  team_members: TeamMembersTable
  oidc_providers: OidcProvidersTable
  tags: TagsTable
  links: LinksTable
  link_tags: LinkTagsTable
  tag_link_counts: TagLinkCountsTable
  go_preferences: GoPreferencesTable
  link_teams: LinkTeamsTable
  link_pins: LinkPinsTable
  collections: CollectionsTable
  collection_links: CollectionLinksTable
  collection_teams: CollectionTeamsTable
  link_clicks: LinkClicksTable
  link_click_window: LinkClickWindowTable
  link_suggestion_cache: LinkSuggestionCacheTable
  link_suggestion_calls: LinkSuggestionCallsTable
  deleted_links: DeletedLinksTable
  link_transfer_offers: LinkTransferOffersTable
  billing_events: BillingEventsTable
  known_devices: KnownDevicesTable
  mail_outbox: MailOutboxTable
  scim_credentials: ScimCredentialsTable
  scim_users: ScimUsersTable
  scim_requests: ScimRequestsTable
}

export type Db = Kysely<Database>
/** Either the database or an open transaction: repos take this as their first argument. */
export type Executor = Kysely<Database> | Transaction<Database>

export type NewUserRow = Insertable<UsersTable>
export type UserUpdate = Updateable<UsersTable>
