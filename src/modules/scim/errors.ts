/**
 * SCIM's own error shape (RFC 7644 §3.12): under /scim/v2 every failure is an Error resource —
 * `status` as a string, `scimType` where the RFC gives one — instead of the service's envelope,
 * because the identity providers' clients read only this shape.
 */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error'

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive'

export class ScimError extends Error {
  /**
   * What a 409 uniqueness collided on (the request's userName or displayName), for the request
   * log only: never part of the answer.
   */
  subject: string | null = null

  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
    readonly retryAfter?: number,
  ) {
    super(detail)
    this.name = 'ScimError'
  }
}

export interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA]
  status: string
  scimType?: ScimType
  detail: string
}

export function scimErrorBody(error: ScimError): ScimErrorBody {
  return {
    schemas: [ERROR_SCHEMA],
    status: String(error.status),
    ...(error.scimType !== undefined && { scimType: error.scimType }),
    detail: error.message,
  }
}

export const badRequest = (detail: string, scimType: ScimType = 'invalidValue') =>
  new ScimError(400, detail, scimType)
export const notFound = (detail = 'No such resource.') => new ScimError(404, detail)
/** 409 uniqueness; `subject` is the userName or displayName that collided, for the request log. */
export function conflict(detail: string, subject: string): ScimError {
  const error = new ScimError(409, detail, 'uniqueness')
  error.subject = subject
  return error
}
