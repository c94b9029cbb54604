/**
 * The ordered list of migrations. Append only: a migration that has shipped is never edited.
 */
import type { Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'
import * as m0001 from './0001_users.js'
import * as m0002 from './0002_sessions.js'
import * as m0003 from './0003_audit_events.js'
import * as m0004 from './0004_api_tokens.js'
import * as m0005 from './0005_mfa.js'
import * as m0006 from './0006_settings.js'
import * as m0007 from './0007_email_verifications.js'
import * as m0008 from './0008_organizations.js'
import * as m0009 from './0009_teams.js'
import * as m0010 from './0010_oidc_providers.js'
import * as m0011 from './0011_tags_links.js'
import * as m0012 from './0012_go_preferences.js'
import * as m0013 from './0013_billing_events.js'
import * as m0014 from './0014_backup_code_selectors.js'
import * as m0017 from './0017_oidc_issuer_trust_email.js'
import * as m0018 from './0018_passkeys.js'
import * as m0019 from './0019_security_policy_notifications.js'
import * as m0022 from './0022_password_resets.js'
import * as m0023 from './0023_invitation_links.js'
import * as m0024 from './0024_scoped_api_tokens.js'
import * as m0025 from './0025_audit_merkle_tree.js'
import * as m0026 from './0026_scim.js'
import * as m0027 from './0027_link_clicks.js'
import * as m0028 from './0028_scim_requests.js'
import * as m0029 from './0029_audit_anchor_delivery.js'
import * as m0030 from './0030_deleted_links.js'
import * as m0031 from './0031_session_reauthentication.js'
import * as m0032 from './0032_password_changed_at.js'
import * as m0033 from './0033_scim_credential_names.js'
import * as m0034 from './0034_audit_tree_materialized.js'
import * as m0040 from './0040_link_transfer_offers.js'
import * as m0045 from './0045_link_suggestions.js'
import * as m0055 from './0055_link_teams.js'
import * as m0056 from './0056_link_pins.js'
import * as m0057 from './0057_collections.js'
import * as m0065 from './0065_link_search.js'
import * as m0075 from './0075_scim_user_scope.js'
import * as m0080 from './0080_link_url_keys.js'
import * as m0090 from './0090_user_search.js'
import * as m0095 from './0095_scim_request_subject.js'
import * as m0105 from './0105_link_search_owners.js'
import * as m0106 from './0106_user_search_one_index.js'
import * as m0113 from './0113_audit_frontier_append.js'
import * as m0114 from './0114_link_owner_url_indexes.js'
import * as m0115 from './0115_link_search_index_only.js'
import * as m0116 from './0116_link_search_merge.js'
import * as m0117 from './0117_user_search_rows_order.js'
import * as m0118 from './0118_user_search_stored_lower.js'
import * as m0119 from './0119_scim_request_ring.js'
import * as m0120 from './0120_link_search_stored_lower.js'
import * as m0121 from './0121_link_recent_clicks.js'
import * as m0122 from './0122_tag_link_counts.js'
import * as m0123 from './0123_link_search_short_terms.js'
import * as m0124 from './0124_link_search_pairs.js'
import * as m0125 from './0125_link_search_one_character_terms.js'

export interface EngineMigration {
  up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void>
  down?(db: Kysely<unknown>, engine: MigrationEngine): Promise<void>
}

export const migrations: Record<string, EngineMigration> = {
  '0001_users': m0001,
  '0002_sessions': m0002,
  '0003_audit_events': m0003,
  '0004_api_tokens': m0004,
  '0005_mfa': m0005,
  '0006_settings': m0006,
  '0007_email_verifications': m0007,
  '0008_organizations': m0008,
  '0009_teams': m0009,
  '0010_oidc_providers': m0010,
  '0011_tags_links': m0011,
  '0012_go_preferences': m0012,
  '0013_billing_events': m0013,
  '0014_backup_code_selectors': m0014,
  '0017_oidc_issuer_trust_email': m0017,
  '0018_passkeys': m0018,
  '0019_security_policy_notifications': m0019,
  '0022_password_resets': m0022,
  '0023_invitation_links': m0023,
  '0024_scoped_api_tokens': m0024,
  '0025_audit_merkle_tree': m0025,
  '0026_scim': m0026,
  '0027_link_clicks': m0027,
  '0028_scim_requests': m0028,
  '0029_audit_anchor_delivery': m0029,
  '0030_deleted_links': m0030,
  '0031_session_reauthentication': m0031,
  '0032_password_changed_at': m0032,
  '0033_scim_credential_names': m0033,
  '0034_audit_tree_materialized': m0034,
  '0040_link_transfer_offers': m0040,
  '0045_link_suggestions': m0045,
  '0055_link_teams': m0055,
  '0056_link_pins': m0056,
  '0057_collections': m0057,
  '0065_link_search': m0065,
  '0075_scim_user_scope': m0075,
  '0080_link_url_keys': m0080,
  '0090_user_search': m0090,
  '0095_scim_request_subject': m0095,
  '0105_link_search_owners': m0105,
  '0106_user_search_one_index': m0106,
  '0113_audit_frontier_append': m0113,
  '0114_link_owner_url_indexes': m0114,
  '0115_link_search_index_only': m0115,
  '0116_link_search_merge': m0116,
  '0117_user_search_rows_order': m0117,
  '0118_user_search_stored_lower': m0118,
  '0119_scim_request_ring': m0119,
  '0120_link_search_stored_lower': m0120,
  '0121_link_recent_clicks': m0121,
  '0122_tag_link_counts': m0122,
  '0123_link_search_short_terms': m0123,
  '0124_link_search_pairs': m0124,
  '0125_link_search_one_character_terms': m0125,
}
