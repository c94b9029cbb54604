/**
 * /api/links — personal links and links shared with the caller's organizations
 * (docs/API.md#links-and-go-links): one route file per sub-feature, registered in this order (the
 * order of the OpenAPI document).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { bookmarkRoutes } from './bookmarks/routes.js'
import { linkCollectionRoutes } from './collection.routes.js'
import { linkDialogRoutes } from './dialog.routes.js'
import { linkDuplicateRoutes } from './duplicates.routes.js'
import { singleLinkRoutes } from './link.routes.js'
import { linkOwnershipRoutes } from './ownership.routes.js'
import { transferOfferRoutes } from './transfer-offers.routes.js'

export function linkRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(bookmarkRoutes(deps))
    await app.register(linkCollectionRoutes(deps))
    await app.register(linkDialogRoutes(deps))
    await app.register(linkDuplicateRoutes(deps))
    await app.register(singleLinkRoutes(deps))
    await app.register(linkOwnershipRoutes(deps))
    await app.register(transferOfferRoutes(deps))
  }
}
