/**
 * The OpenAPI document as an enforced contract: every exchange a test sees through the HTTP layer
 * (app.inject in test/helpers/app.ts, the process tests' fetch in test/helpers/process.ts) is
 * checked against the document the application serves.
 *
 * - The response: its status is documented for the operation, its media type is one the
 *   operation declares (no body where it declares none), and its body matches the schema.
 * - The request, when the answer is 2xx: what the service accepted, the document must accept too
 *   (path, query and header parameters, the body and its media type).
 *
 * Requests outside the document (unknown routes, wrong methods) must still be answered with the
 * error envelope. Validators are compiled with Ajv from the document's own schemas, lazily and
 * once per schema location, so a test file pays only for the operations it calls.
 */
import { createHash } from 'node:crypto'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import FindMyWay, { type HTTPMethod } from 'find-my-way'

// ajv-formats is CommonJS with its function on `default` under NodeNext resolution.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** One HTTP exchange, as the test saw it. */
export interface Exchange {
  method: string
  /** Path and query string, as sent. */
  url: string
  requestHeaders: Record<string, string | string[] | undefined>
  /** The raw request body; undefined when none was sent (or it was a stream). */
  requestBody: string | Buffer | undefined
  status: number
  responseHeaders: Record<string, string | string[] | number | undefined>
  responseBody: string
}

export class ContractViolation extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ContractViolation'
  }
}

// Schemas and bodies from the wire, walked generically.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

interface Parameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required?: boolean
  schema?: Json
}

interface Operation {
  method: string
  path: string
  pointer: string
  operation: Json
}

const DOCUMENT_ID = 'openapi.json'
const IGNORED_PREFIXES = ['/api/docs', '/api/openapi.json']

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1')

function mediaTypeOf(header: unknown): { essence: string; params: Map<string, string> } | null {
  if (typeof header !== 'string' || header === '') return null
  const [essence, ...rest] = header.split(';')
  const params = new Map<string, string>()
  for (const part of rest) {
    const [name, value] = part.split('=')
    if (name && value !== undefined)
      params.set(name.trim().toLowerCase(), value.trim().replace(/^"|"$/g, ''))
  }
  return { essence: essence!.trim().toLowerCase(), params }
}

/**
 * The documented media type (key of `content`) that the sent Content-Type satisfies; as OpenAPI
 * says, an exact key before a range (`text/*`), and a range before the catch-all.
 */
function matchingMediaType(documented: string[], sent: unknown): string | undefined {
  const actual = mediaTypeOf(sent)
  if (actual === null) return undefined
  const matches = (essence: string) =>
    documented.find((key) => {
      const expected = mediaTypeOf(key)!
      return (
        expected.essence === essence &&
        [...expected.params].every(([name, value]) => actual.params.get(name) === value)
      )
    })
  return matches(actual.essence) ?? matches(`${actual.essence.split('/')[0]}/*`) ?? matches('*/*')
}

const isJson = (mediaType: string) =>
  /^application\/(.+\+)?json$/.test(mediaTypeOf(mediaType)!.essence)

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? e.keyword}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    )
    .join('; ')
}

function createAjv(coerceTypes: boolean | 'array'): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    coerceTypes,
    validateSchema: false,
    useDefaults: false,
  })
  addFormats(ajv)
  // The service trims free text before checking it (src/plugins/validation.ts): so does the
  // contract, or a name sent with surrounding spaces would count them against maxLength.
  ajv.addKeyword({
    keyword: 'x-trim',
    type: 'string',
    modifying: true,
    schemaType: 'boolean',
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
  return ajv
}

export class Contract {
  readonly #document: Json
  readonly #router = FindMyWay({ ignoreTrailingSlash: false, maxParamLength: 64 * 1024 })
  readonly #bodies = createAjv(false)
  readonly #text = createAjv('array')
  readonly #validators = new Map<string, ValidateFunction>()

  constructor(document: Json) {
    this.#document = document
    this.#bodies.addSchema(document, DOCUMENT_ID)
    this.#text.addSchema(document, DOCUMENT_ID)
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      const route = path.replace(/\{([^}]+)\}/g, ':$1')
      for (const [method, operation] of Object.entries(item)) {
        const store: Operation = {
          method,
          path,
          operation,
          pointer: `#/paths/${escapePointer(path)}/${method}`,
        }
        this.#router.on(method.toUpperCase() as HTTPMethod, route, () => undefined, store)
      }
    }
  }

  /** Throws a ContractViolation naming the operation, the status and what does not match. */
  check(exchange: Exchange): void {
    const method = exchange.method.toUpperCase()
    const [pathname = '/', query = ''] = exchange.url.split(/\?(.*)/s, 2)
    if (IGNORED_PREFIXES.some((prefix) => pathname.startsWith(prefix))) return
    if (method === 'HEAD' || method === 'OPTIONS') return
    let found: ReturnType<typeof this.findRoute>
    try {
      found = this.findRoute(method, pathname)
    } catch {
      found = null // a URL the router cannot decode: answered before routing, as below
    }
    if (found === null) {
      // Not an operation of the document: outside /api (the go-link pages) anything goes; inside,
      // the answer is an error in the envelope.
      if (!pathname.startsWith('/api/')) return
      const where = `${method} ${pathname.slice(0, 80)} (no documented operation) answered ${exchange.status}`
      if (exchange.status < 400) throw new ContractViolation(`${where}, not an error`)
      this.checkBody(
        where,
        exchange,
        'application/json',
        `${DOCUMENT_ID}#/components/schemas/Error`,
        this.#bodies,
      )
      return
    }
    const { store, params } = found
    const where = `${String(store.operation.operationId ?? '(no operationId)')} (${method} ${store.path}) answered ${exchange.status}`
    this.checkResponse(where, store, exchange)
    if (exchange.status >= 200 && exchange.status < 300)
      this.checkRequest(where, store, params, query, exchange)
  }

  private findRoute(
    method: string,
    pathname: string,
  ): { store: Operation; params: Record<string, string | undefined> } | null {
    const match = this.#router.find(method as HTTPMethod, pathname)
    return match === null ? null : { store: match.store as Operation, params: match.params }
  }

  /** The node at a JSON pointer of the document (`#/…`). */
  private lookup(pointer: string): Json | undefined {
    return pointer
      .slice(2)
      .split('/')
      .reduce(
        (node: Json | undefined, part: string) =>
          node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
        this.#document,
      )
  }

  private resolve(value: Json, pointer: string): { value: Json; pointer: string } {
    if (typeof value.$ref !== 'string' || !value.$ref.startsWith('#/')) return { value, pointer }
    return this.resolve(this.lookup(value.$ref) ?? {}, value.$ref)
  }

  private validator(ajv: Ajv2020, location: string): ValidateFunction {
    // Many locations hold only a reference to one component (the error envelope): compile that
    // once.
    const node = this.lookup(location.slice(DOCUMENT_ID.length))
    const ref =
      node !== undefined &&
      Object.keys(node).length === 1 &&
      typeof node.$ref === 'string' &&
      node.$ref.startsWith('#/')
        ? `${DOCUMENT_ID}${node.$ref}`
        : location
    const key = `${ajv === this.#bodies ? 'b' : 't'} ${ref}`
    let validate = this.#validators.get(key)
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref })
      this.#validators.set(key, validate)
    }
    return validate
  }

  private checkResponse(where: string, store: Operation, exchange: Exchange): void {
    const responses = store.operation.responses as Json
    const status = String(exchange.status)
    const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default
    if (declared === undefined) {
      const body = exchange.responseBody.slice(0, 200)
      throw new ContractViolation(
        `${where}, a status the document does not list (documented: ${Object.keys(responses).join(', ')}); body: ${body}`,
      )
    }
    const key =
      responses[status] !== undefined
        ? status
        : responses[`${status[0]}XX`] !== undefined
          ? `${status[0]}XX`
          : 'default'
    const response = this.resolve(declared, `${store.pointer}/responses/${key}`)
    const content = response.value.content as Json | undefined
    if (content === undefined || Object.keys(content).length === 0) {
      if (exchange.responseBody.length > 0)
        throw new ContractViolation(
          `${where} with a body where the document declares no content: ${exchange.responseBody.slice(0, 200)}`,
        )
      return
    }
    const sent = exchange.responseHeaders['content-type']
    const mediaType = matchingMediaType(Object.keys(content), sent)
    if (mediaType === undefined) {
      throw new ContractViolation(
        `${where} with Content-Type ${String(sent)}; the document declares ${Object.keys(content).join(', ')}`,
      )
    }
    if (content[mediaType].schema === undefined) return
    this.checkBody(
      where,
      exchange,
      mediaType,
      `${DOCUMENT_ID}${response.pointer}/content/${escapePointer(mediaType)}/schema`,
      this.#bodies,
    )
  }

  private checkBody(
    where: string,
    exchange: Exchange,
    mediaType: string,
    ref: string,
    ajv: Ajv2020,
  ): void {
    let body: unknown = exchange.responseBody
    if (isJson(mediaType)) {
      const sent = mediaTypeOf(exchange.responseHeaders['content-type'])
      if (sent === null || !isJson(sent.essence))
        throw new ContractViolation(
          `${where} with Content-Type ${String(exchange.responseHeaders['content-type'])}, not JSON`,
        )
      try {
        body = JSON.parse(exchange.responseBody)
      } catch {
        throw new ContractViolation(
          `${where} with a body that is not JSON: ${exchange.responseBody.slice(0, 200)}`,
        )
      }
    }
    const validate = this.validator(ajv, ref)
    if (!validate(body))
      throw new ContractViolation(
        `${where} with a body the schema refuses: ${describeErrors(validate)}; body: ${exchange.responseBody.slice(0, 300)}`,
      )
  }

  private checkRequest(
    where: string,
    store: Operation,
    params: Record<string, string | undefined>,
    query: string,
    exchange: Exchange,
  ): void {
    const refused = (what: string) =>
      new ContractViolation(`${where} to a request the document refuses: ${what}`)
    const parameters = (store.operation.parameters ?? []) as Parameter[]
    const queryValues = new Map<string, string[]>()
    for (const [name, value] of new URLSearchParams(query))
      queryValues.set(name, [...(queryValues.get(name) ?? []), value])
    parameters.forEach((parameter, index) => {
      let value: unknown
      if (parameter.in === 'path') value = params[parameter.name]
      else if (parameter.in === 'query') {
        const values = queryValues.get(parameter.name)
        value = values === undefined ? undefined : values.length === 1 ? values[0] : values
      } else if (parameter.in === 'header')
        value = exchange.requestHeaders[parameter.name.toLowerCase()]
      else return
      if (value === undefined) {
        if (parameter.required === true)
          throw refused(`the ${parameter.in} parameter ${parameter.name} is required`)
        return
      }
      if (parameter.schema === undefined) return
      // Validated inside an object so that coercion ("20" → 20) can replace the value.
      const holder = { value }
      const validate = this.validator(
        this.#text,
        `${DOCUMENT_ID}${store.pointer}/parameters/${index}/schema`,
      )
      if (!validate(holder.value)) {
        // Ajv coerces only values it can reach through a parent; retry the coerced scalar.
        const coerced = coerceScalar(holder.value, parameter.schema)
        if (!validate(coerced))
          throw refused(
            `the ${parameter.in} parameter ${parameter.name}: ${describeErrors(validate)}`,
          )
      }
    })

    const requestBody = store.operation.requestBody as Json | undefined
    const raw = exchange.requestBody
    const hasBody = raw !== undefined && raw.length > 0
    if (requestBody === undefined) return
    if (!hasBody) {
      if (requestBody.required === true) throw refused('the request body is required')
      return
    }
    const content = requestBody.content as Json
    const mediaType = matchingMediaType(
      Object.keys(content),
      exchange.requestHeaders['content-type'],
    )
    if (mediaType === undefined)
      throw refused(
        `Content-Type ${String(exchange.requestHeaders['content-type'])}; the document accepts ${Object.keys(content).join(', ')}`,
      )
    let body: unknown = raw.toString()
    if (isJson(mediaType)) {
      try {
        body = JSON.parse(body as string)
      } catch {
        throw refused('the body is not JSON')
      }
    }
    const validate = this.validator(
      this.#bodies,
      `${DOCUMENT_ID}${store.pointer}/requestBody/content/${escapePointer(mediaType)}/schema`,
    )
    if (!validate(body)) throw refused(`the body: ${describeErrors(validate)}`)
  }
}

function coerceScalar(value: unknown, schema: Json): unknown {
  if (typeof value !== 'string') return value
  if (
    (schema.type === 'integer' || schema.type === 'number') &&
    value.trim() !== '' &&
    !Number.isNaN(Number(value))
  )
    return Number(value)
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true'
  return value
}

const contracts = new Map<string, Contract>()

/**
 * The contract of a document; documents with the same text share one (and its compiled validators).
 */
export function contractFor(document: Json): Contract {
  const key = createHash('sha256').update(JSON.stringify(document)).digest('hex')
  let contract = contracts.get(key)
  if (contract === undefined) {
    contract = new Contract(document)
    contracts.set(key, contract)
  }
  return contract
}

/**
 * Violations found so far in this test file: some tests settle requests without awaiting each one.
 */
export const violations: string[] = []

export function checkExchange(contract: Contract, exchange: Exchange): void {
  try {
    contract.check(exchange)
  } catch (error) {
    if (error instanceof ContractViolation) violations.push(error.message)
    throw error
  }
}
