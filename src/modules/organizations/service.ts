/**
 * Organizations (docs/API.md#organizations-and-invitations): the caller's list, creation (the
 * creator becomes the owner), reading, renaming and deletion. Who may do what comes from roles.ts
 * through access.ts.
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { requirePermission } from './access.js'
import { insertMember } from './members.repo.js'
import {
  deleteOrganization as deleteOrganizationRow,
  lockOrganizationCollectionsAndLinks,
  findSlugsStartingWith,
  insertOrganization,
  listOrganizationsOfMember,
  updateOrganization as updateOrganizationRow,
  type OrganizationRecord,
} from './repo.js'
import type { CreateOrganizationBody, UpdateOrganizationBody } from './schemas.js'
import { firstFreeSlug, slugCandidatesPrefix, slugFromName } from './slug.js'

/** Attempts at a generated slug when concurrent creations keep taking the one chosen. */
const GENERATED_SLUG_ATTEMPTS = 10

function slugTaken(): AppError {
  return new AppError('ALREADY_EXISTS', { message: 'This slug is already taken.', details: 'slug' })
}

export async function listOrganizations(
  deps: Deps,
  caller: Caller,
  query: PageQuery,
): Promise<Page<OrganizationRecord>> {
  const window = pageWindow(query)
  const rows = await listOrganizationsOfMember(
    deps.db,
    caller.user.id,
    window,
    caller.grant?.organizations ?? null,
  )
  return toPage(
    rows,
    window.limit,
    (row) => row,
    (row) => [row.name, row.id],
  )
}

export async function getOrganization(
  deps: Deps,
  caller: Caller,
  organizationId: string,
): Promise<OrganizationRecord> {
  return requirePermission(deps.db, organizationId, caller.user.id, 'read')
}

/**
 * Creates the organization with the caller as its owner. An explicit slug that is taken is a 409;
 * a generated one moves on to the next free suffix — and, when a concurrent creation takes it
 * between the read and the insert (the unique index says so), the whole transaction is retried.
 */
export async function createOrganization(
  deps: Deps,
  caller: Caller,
  input: CreateOrganizationBody,
  ctx: RequestContext,
): Promise<OrganizationRecord> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.db.transaction().execute(async (tx) => {
        const base = input.slug ?? slugFromName(input.name)
        const slug =
          input.slug ??
          firstFreeSlug(base, await findSlugsStartingWith(tx, slugCandidatesPrefix(base)))
        const now = deps.clock.now().toISOString()
        const id = newId()
        await insertOrganization(tx, { id, name: input.name, slug, created_at: now })
        await insertMember(tx, {
          organization_id: id,
          user_id: caller.user.id,
          role: 'owner',
          joined_at: now,
        })
        await recordAudit(tx, deps.clock, ctx, {
          action: 'org.create',
          actor: caller.user,
          target: { type: 'organization', id },
          metadata: { name: input.name, slug },
        })
        return { id, name: input.name, slug, plan: 'free', role: 'owner' as const, created_at: now }
      })
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      if (input.slug !== undefined || attempt >= GENERATED_SLUG_ATTEMPTS) throw slugTaken()
    }
  }
}

export async function updateOrganization(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  patch: UpdateOrganizationBody,
  ctx: RequestContext,
): Promise<OrganizationRecord> {
  try {
    return await deps.db.transaction().execute(async (tx) => {
      const organization = await requirePermission(tx, organizationId, caller.user.id, 'update')
      await updateOrganizationRow(tx, organizationId, {
        ...patch,
        updated_at: deps.clock.now().toISOString(),
      })
      await recordAudit(tx, deps.clock, ctx, {
        action: 'org.update',
        actor: caller.user,
        target: { type: 'organization', id: organizationId },
        metadata: { fields: Object.keys(patch).sort(), ...patch },
      })
      return { ...organization, ...patch }
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken()
    throw error
  }
}

/** Deletes the organization with its memberships and invitations (owners only). */
export async function deleteOrganization(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const organization = await requirePermission(tx, organizationId, caller.user.id, 'delete')
    await lockOrganizationCollectionsAndLinks(tx, organizationId)
    await deleteOrganizationRow(tx, organizationId)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.delete',
      actor: caller.user,
      target: { type: 'organization', id: organizationId },
      metadata: { name: organization.name, slug: organization.slug },
    })
  })
}
