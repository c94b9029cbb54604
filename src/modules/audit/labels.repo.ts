/**
 * What the audit log's targets are called today — a user's email, an organization's,
 * team's, token's, passkey's, identity provider's or SCIM credential's name — for one page of
 * events in ONE statement (a UNION ALL over the tables an event may name), not one query per row.
 * A target deleted since has no label; the console then shows its type and id.
 */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'

/**
 * target_type → the table and column that name it. Settings are named by their key (the id itself).
 */
const LABELS = {
  user: { table: 'users', column: 'email' },
  organization: { table: 'organizations', column: 'name' },
  team: { table: 'teams', column: 'name' },
  api_token: { table: 'api_tokens', column: 'name' },
  passkey: { table: 'passkeys', column: 'name' },
  oidc_provider: { table: 'oidc_providers', column: 'name' },
  scim_credential: { table: 'scim_credentials', column: 'name' },
} as const

type LabelledType = keyof typeof LABELS

const isLabelled = (type: string): type is LabelledType => Object.hasOwn(LABELS, type)

/** `type:id` → label, for the targets given; types without a name are left out. */
export async function findTargetLabels(
  ex: Executor,
  targets: Array<{ type: string; id: string }>,
): Promise<Map<string, string>> {
  const idsByType = new Map<LabelledType, Set<string>>()
  for (const { type, id } of targets)
    if (isLabelled(type)) idsByType.set(type, (idsByType.get(type) ?? new Set()).add(id))
  const labels = new Map<string, string>()
  if (idsByType.size === 0) return labels
  const branches = [...idsByType].map(([type, ids]) => {
    const { table, column } = LABELS[type]
    return sql<{
      type: string
      id: string
      label: string
    }>`select ${sql.lit(type)} as type, id, ${sql.ref(column)} as label from ${sql.table(table)} where id in (${sql.join([...ids])})`
  })
  const { rows } = await sql<{
    type: string
    id: string
    label: string
  }>`${sql.join(branches, sql` union all `)}`.execute(ex)
  for (const row of rows) labels.set(`${row.type}:${row.id}`, row.label)
  return labels
}
