/**
 * A Switchboard account as a SCIM User (RFC 7643 §4.1, with the enterprise extension §4.3), and a
 * User sent by an identity provider back into what Switchboard stores. The rendered resource is
 * also the allow-list of what leaves the server: no password, hash or credential is ever in it.
 */
import { isDisplayText } from '../../lib/schema-types.js'
import { ScimError } from './errors.js'
import { SCHEMA } from './discovery.js'
import { keyOf } from './filter.js'
import type { ScimUserRow } from './users.repo.js'

type JsonObject = Record<string, unknown>

/**
 * The row as one SCIM credential sees it: an externalId is scoped to the provisioning domain that
 * set it (RFC 7643 §3.1), so another credential's is absent; one set before scoping is shared.
 */
export function visibleTo(row: ScimUserRow, credentialId: string): ScimUserRow {
  if (row.external_id_scope === null || row.external_id_scope === credentialId) return row
  return { ...row, external_id: null }
}

export function toScimUser(row: ScimUserRow, baseUrl: string): JsonObject {
  const enterprise = {
    ...(row.employee_number !== null && { employeeNumber: row.employee_number }),
    ...(row.department !== null && { department: row.department }),
    ...(row.manager_id !== null && { manager: { value: row.manager_id } }),
  }
  const hasEnterprise = Object.keys(enterprise).length > 0
  return {
    schemas: hasEnterprise ? [SCHEMA.user, SCHEMA.enterprise] : [SCHEMA.user],
    id: row.id,
    ...(row.external_id !== null && { externalId: row.external_id }),
    userName: row.user_name ?? row.email,
    name: {
      formatted: row.formatted_name ?? row.name,
      ...(row.given_name !== null && { givenName: row.given_name }),
      ...(row.family_name !== null && { familyName: row.family_name }),
    },
    displayName: row.name,
    active: !row.disabled,
    emails: [{ value: row.email, type: 'work', primary: true }],
    ...(hasEnterprise && { [SCHEMA.enterprise]: enterprise }),
    meta: {
      resourceType: 'User',
      created: row.created_at,
      lastModified: row.updated_at,
      location: `${baseUrl}/Users/${row.id}`,
    },
  }
}

/** What a User resource asks Switchboard to store. */
export interface UserModel {
  userName: string
  email: string
  name: string
  /** name.formatted when it differs from `name` (null: the same). */
  formattedName: string | null
  active: boolean
  password: string | null
  externalId: string | null
  givenName: string | null
  familyName: string | null
  employeeNumber: string | null
  department: string | null
  managerId: string | null
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function get(object: unknown, name: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined
  const key = keyOf(object as JsonObject, name)
  return key === undefined ? undefined : (object as JsonObject)[key]
}

function optionalString(value: unknown, field: string, max = 256): string | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value === 'number') return String(value)
  if (typeof value !== 'string')
    throw new ScimError(400, `${field} must be a string.`, 'invalidValue')
  const trimmed = value.trim()
  if (trimmed.length > max || !isDisplayText(trimmed))
    throw new ScimError(
      400,
      `${field} must be at most ${max} printable characters.`,
      'invalidValue',
    )
  return trimmed === '' ? null : trimmed
}

/** Entra sends booleans as strings ("True", "False"); any case is accepted. */
export function toBoolean(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === 'true'
  throw new ScimError(400, `${field} must be a boolean.`, 'invalidValue')
}

function primaryEmail(emails: unknown): string | null {
  if (emails === undefined || emails === null) return null
  const list: unknown[] = Array.isArray(emails) ? emails : [emails]
  const values = list.filter(
    (e) => typeof get(e, 'value') === 'string' && (get(e, 'value') as string).trim() !== '',
  )
  const primary = values.find((e) => {
    const flag = get(e, 'primary')
    return flag !== undefined && toBoolean(flag, 'emails.primary')
  })
  const work = values.find((e) => {
    const type = get(e, 'type')
    return typeof type === 'string' && type.toLowerCase() === 'work'
  })
  const chosen = primary ?? work ?? values[0]
  return chosen === undefined ? null : (get(chosen, 'value') as string)
}

/**
 * `activeWhenAbsent` is what an omitted `active` means: true on create, the current state on
 * replace (a PUT without `active` never re-activates a deprovisioned account). An explicit
 * `active: null` is refused everywhere: RFC 7643 reads null as "unassigned", and an account is
 * never in neither state — taking it as `true` silently re-activated a deprovisioned person.
 */
export function fromScimUser(resource: unknown, activeWhenAbsent = true): UserModel {
  if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) {
    throw new ScimError(400, 'The body must be a User resource.', 'invalidSyntax')
  }
  const userName = optionalString(get(resource, 'userName'), 'userName')
  if (userName === null) throw new ScimError(400, 'userName is required.', 'invalidValue')
  const email =
    (primaryEmail(get(resource, 'emails')) ?? (EMAIL.test(userName) ? userName : null))
      ?.trim()
      .toLowerCase() ?? null
  if (email === null || email.length > 254 || !EMAIL.test(email) || !isDisplayText(email)) {
    throw new ScimError(
      400,
      'An email address is required: in emails, or as a userName that is one.',
      'invalidValue',
    )
  }
  const name = get(resource, 'name')
  const givenName = optionalString(get(name, 'givenName'), 'name.givenName', 100)
  const familyName = optionalString(get(name, 'familyName'), 'name.familyName', 100)
  const formatted = optionalString(get(name, 'formatted'), 'name.formatted', 100)
  const display =
    optionalString(get(resource, 'displayName'), 'displayName', 100) ??
    formatted ??
    ([givenName, familyName]
      .filter((part) => part !== null)
      .join(' ')
      .slice(0, 100) ||
      userName.slice(0, 100))
  const active = get(resource, 'active')
  const password = get(resource, 'password')
  if (
    password !== undefined &&
    password !== null &&
    (typeof password !== 'string' || password.length === 0 || password.length > 1024)
  ) {
    throw new ScimError(400, 'password must be a non-empty string.', 'invalidValue')
  }
  const enterprise = get(resource, SCHEMA.enterprise)
  const manager = get(enterprise, 'manager')
  return {
    userName,
    email,
    name: display,
    formattedName: formatted === display ? null : formatted,
    active: active === undefined ? activeWhenAbsent : toBoolean(active, 'active'),
    password: typeof password === 'string' ? password : null,
    externalId: optionalString(get(resource, 'externalId'), 'externalId'),
    givenName,
    familyName,
    employeeNumber: optionalString(get(enterprise, 'employeeNumber'), 'employeeNumber'),
    department: optionalString(get(enterprise, 'department'), 'department'),
    managerId: optionalString(
      typeof manager === 'object' ? get(manager, 'value') : manager,
      'manager.value',
    ),
  }
}
