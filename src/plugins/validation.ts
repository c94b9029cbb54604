/**
 * Request validation with two Ajv instances:
 * - bodies are checked strictly: no type coercion (a JSON number is not a name) and unknown fields
 *   are reported rather than stripped (docs/API.md#conventions);
 * - path parameters and query strings arrive as text, so there types are coerced ("50" → 50).
 * Both know the `x-trim` keyword, which trims free text before the length and pattern checks.
 */
import type { FastifyInstance, FastifySchema } from 'fastify'
import { Ajv, type Options, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FieldProblem, FieldProblemCode } from '../errors.js'

// ajv-formats is CommonJS with its function on `default` under NodeNext resolution.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true, // every failing field in `details`, not just the first
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    verbose: true, // gives errors their parentSchema, for the x-message annotation
    ...options,
  })
  addFormats(ajv, ['email', 'date-time', 'uri', 'uuid'])
  ajv.addKeyword({
    keyword: 'x-trim',
    type: 'string',
    modifying: true,
    schemaType: 'boolean',
    // Runs before maxLength/minLength/pattern/format, so they see the trimmed text.
    before: 'maxLength',
    validate(
      this: unknown,
      enabled: boolean,
      data: string,
      _schema?: unknown,
      ctx?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
    ) {
      if (enabled && ctx?.parentData !== undefined)
        ctx.parentData[ctx.parentDataProperty] = data.trim()
      return true
    },
  })
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' })
  // The stable code of a pattern's problem, e.g. invalid_characters for display text.
  ajv.addKeyword({ keyword: 'x-code', schemaType: 'string' })
  return ajv
}

interface AjvError {
  keyword: string
  instancePath: string
  message?: string
  params: Record<string, unknown>
  parentSchema?: {
    'x-message'?: string
    'x-code'?: FieldProblemCode
    enum?: unknown[]
    format?: string
  }
}

function fieldName(instancePath: string, part: string): string {
  const path = instancePath.replace(/^\//, '').replace(/\//g, '.')
  return path === '' ? part : path
}

/**
 * Turns Ajv errors into one `{ field, message, code }` per field, the most specific problem first.
 */
export function toFieldProblems(errors: AjvError[], part: string): FieldProblem[] {
  const byField = new Map<string, FieldProblem>()
  const SUMMARY = 'does not match any accepted form'
  for (const error of errors) {
    let field = fieldName(error.instancePath, part)
    let problem: Omit<FieldProblem, 'field'>
    const limit = typeof error.params.limit === 'number' ? error.params.limit : undefined
    if (error.keyword === 'required') {
      field = fieldName(`${error.instancePath}/${String(error.params.missingProperty)}`, part)
      problem = { message: 'is required', code: 'required' }
    } else if (error.keyword === 'additionalProperties') {
      field = fieldName(`${error.instancePath}/${String(error.params.additionalProperty)}`, part)
      problem = { message: 'is not an accepted field', code: 'unknown_field' }
    } else if (error.keyword === 'enum') {
      const allowed = (error.params.allowedValues as unknown[]).map(String)
      problem = { message: `must be one of: ${allowed.join(', ')}`, code: 'not_one_of', allowed }
    } else if (error.keyword === 'format') {
      const format = String(error.params.format)
      problem = {
        message: error.parentSchema?.['x-message'] ?? `must be a valid ${format}`,
        code: 'format',
        format,
      }
    } else if (error.keyword === 'pattern') {
      const message = error.parentSchema?.['x-message'] ?? 'is not in the expected form'
      const format = error.parentSchema?.format
      // A pattern narrowing a format (a URL that must be http(s)) is that format's problem: the
      // client then says what to enter ("a web address such as https://…").
      problem =
        error.parentSchema?.['x-code'] === undefined && format !== undefined
          ? { message, code: 'format', format }
          : { message, code: error.parentSchema?.['x-code'] ?? 'pattern' }
    } else if (error.keyword === 'minLength') {
      problem =
        limit === 1
          ? { message: 'must not be empty', code: 'empty' }
          : {
              message: `must be at least ${String(limit)} characters long`,
              code: 'too_short',
              limit,
            }
    } else if (error.keyword === 'maxLength') {
      problem = {
        message: `must be at most ${String(limit)} characters long`,
        code: 'too_long',
        limit,
      }
    } else if (error.keyword === 'minimum' || error.keyword === 'exclusiveMinimum') {
      problem = {
        message: error.message ?? 'is too small',
        code: 'too_small',
        ...(limit !== undefined && { limit }),
      }
    } else if (error.keyword === 'maximum' || error.keyword === 'exclusiveMaximum') {
      problem = {
        message: error.message ?? 'is too large',
        code: 'too_large',
        ...(limit !== undefined && { limit }),
      }
    } else if (error.keyword === 'type') {
      problem = { message: `must be of type ${String(error.params.type)}`, code: 'wrong_type' }
    } else if (error.keyword === 'minProperties' && field === part) {
      problem = { message: 'must contain at least one field', code: 'too_few_fields' }
    } else {
      problem = { message: error.message ?? 'is not valid', code: 'invalid' }
    }
    // anyOf/oneOf summaries repeat what their branches already said.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      if (!byField.has(field)) byField.set(field, { field, message: SUMMARY, code: 'invalid' })
      continue
    }
    if (!byField.has(field) || byField.get(field)!.message === SUMMARY)
      byField.set(field, { field, ...problem })
  }
  return [...byField.values()]
}

/**
 * The body rules outside HTTP (the CLI): validates — and trims, like a request — `data` in place.
 * Returns the problems, or null when the data is valid.
 */
export function compileBodyValidator(schema: object): (data: unknown) => FieldProblem[] | null {
  const validate = createAjv({ coerceTypes: false }).compile(schema)
  return (data) =>
    validate(data) ? null : toFieldProblems((validate.errors ?? []) as AjvError[], 'input')
}

/**
 * A validator compiled by its first call: compiling every route's schemas when the application
 * becomes ready would be a large share of the start-up time and heap
 * (docs/decisions/0002-start-up-footprint.md). It presents itself as Ajv's function does: `errors`
 * after a failed call, and `schemaEnv` so Fastify passes the parent object that lets `x-trim`
 * replace a root value.
 */
function compiledOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const validate = ((data: unknown, context?: object) => {
    compiled ??= compile()
    const valid = compiled(data, context as never)
    validate.errors = compiled.errors
    return valid
  }) as ValidateFunction
  Object.defineProperty(validate, 'schemaEnv', { get: () => (compiled ??= compile()).schemaEnv })
  return validate
}

export function installValidation(app: FastifyInstance): void {
  let bodyAjv: Ajv | undefined
  let textAjv: Ajv | undefined
  app.setValidatorCompiler(({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }) =>
    compiledOnFirstUse(() =>
      httpPart === 'body'
        ? (bodyAjv ??= createAjv({ coerceTypes: false })).compile(schema as object)
        : (textAjv ??= createAjv({ coerceTypes: 'array' })).compile(schema as object),
    ),
  )
}
