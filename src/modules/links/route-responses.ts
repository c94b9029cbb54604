/** The error answers several link routes share, as the OpenAPI document describes them. */
import { errorResponse } from '../../plugins/openapi.js'

export const tags = ['links']
export const NO_SUCH_LINK = errorResponse('NOT_FOUND: no such link, or not one you can see')
export const NOT_YOURS = errorResponse(
  "FORBIDDEN: a shared link is changed only by its creator and the organization's owners and admins",
)
export const SLUG_TAKEN = errorResponse(
  'ALREADY_EXISTS: another link of the same owner (you, or the organization) has this slug (details: slug)',
)
