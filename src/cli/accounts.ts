/** Operator commands about people: create-admin, reset-mfa, reset-password, setup-code. */
import { parseArgs } from 'node:util'
import { Body } from '../lib/schema-types.js'
import { setupCodeFor } from '../modules/auth/setup-code.js'
import { resetMfa as removeMfa } from '../modules/mfa/service.js'
import { createResetLinkForOperator } from '../modules/password-reset/service.js'
import { anyUserExists, findUserByEmail } from '../modules/users/repo.js'
import { NewUserFields } from '../modules/users/schemas.js'
import { createAdministrator, normalizeEmail } from '../modules/users/service.js'
import { compileBodyValidator } from '../plugins/validation.js'
import { onlyArgument, readLine, usageError, withDeps, type Command } from './io.js'

/** `create-admin --email E --name N`: the password from stdin, never an argument. */
export const createAdmin: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, name: { type: 'string' } },
  })
  if (values.email === undefined || values.name === undefined)
    return usageError(io, 'create-admin needs --email and --name')
  const input = { email: values.email, name: values.name }
  const problems = compileBodyValidator(Body(NewUserFields))(input)
  if (problems !== null) {
    io.stderr.write(`switchboard: ${problems.map((p) => `--${p.field} ${p.message}`).join('; ')}\n`)
    return 2
  }
  const password = await readLine(io)
  const user = await withDeps(io, (deps) => createAdministrator(deps, { ...input, password }))
  io.stdout.write(`created administrator ${user.email} (id ${user.id})\n`)
  return 0
}

/** `reset-mfa EMAIL`: removes the person's second factors (audited as done by the operator). */
export const resetMfa: Command = async (args, io) => {
  const email = onlyArgument(args)
  if (email === undefined) return usageError(io, 'reset-mfa needs exactly one email')
  const reset = await withDeps(io, async (deps) => {
    const user = await findUserByEmail(deps.db, normalizeEmail(email))
    if (user === null) return null
    await removeMfa(deps, null, user.id, { ip: null, userAgent: null }, 'cli')
    return user
  })
  if (reset === null) {
    io.stderr.write(`switchboard: no user with the email ${email}\n`)
    return 1
  }
  io.stdout.write(`two-factor authentication removed for ${reset.email}\n`)
  return 0
}

/** `reset-password EMAIL`: prints a single-use reset link (audited). */
export const resetPassword: Command = async (args, io) => {
  const email = onlyArgument(args)
  if (email === undefined) return usageError(io, 'reset-password needs exactly one email')
  const link = await withDeps(io, (deps) => createResetLinkForOperator(deps, email))
  if (link === null) {
    io.stderr.write(`switchboard: no user with the email ${email}\n`)
    return 1
  }
  io.stdout.write(
    `password reset link for ${link.email} (single use, valid until ${link.expires_at}):\n` +
      `${link.url}\n` +
      'opening it sets a new password and signs the account out everywhere; ' +
      'two-factor authentication stays on\n',
  )
  return 0
}

/**
 * `setup-code`: the code on demand, for a terminal the operator no longer sees (a container's
 * start-up output); it opens nothing once a user exists, so it is not printed then either.
 */
export const setupCode: Command = async (_args, io) => {
  const code = await withDeps(io, async (deps) =>
    (await anyUserExists(deps.db)) ? null : setupCodeFor(deps),
  )
  if (code === null) {
    io.stderr.write('switchboard: the instance is already set up; there is no setup code\n')
    return 1
  }
  io.stdout.write(`${code}\n`)
  return 0
}
