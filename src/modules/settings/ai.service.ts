/**
 * The AI section (docs/API.md#settings): settings with a write-only API key, the provider's model
 * list (cached 5 minutes), and the AI-suggestion flags every user reads.
 */
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import { sha256Hex } from '../../lib/crypto.js'
import { isIP } from 'node:net'
import {
  addressProblem,
  hostLiteralProblem,
  isLoopbackHost,
  type OutboundPolicy,
} from '../../lib/outbound.js'
import {
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  toPage,
  type Page,
  type PageQuery,
} from '../../lib/pagination.js'
import { AiProviderError, type AiModel } from '../ai/client.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import type { UserRecord } from '../../identity/user.js'
import type { AiView, UpdateAiBody } from './schemas.js'
import {
  AI_SECTION,
  assertUsableWhenEnabled,
  openSecret,
  readSection,
  sealSecret,
  toAiView,
  updateSection,
  type StoredAi,
} from './sections.js'

export async function getAiSettings(deps: Deps): Promise<AiView> {
  return toAiView((await readSection(deps, AI_SECTION)).stored)
}

/**
 * Whether the host names the local network: a private or loopback literal, a name without a dot
 * or under a local-only suffix. Plain http to such a host is allowed with allow_private_network.
 */
function isLocalNetworkHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (isIP(bare) !== 0)
    return (
      addressProblem(bare, { allowPrivateNetworks: false }) !== null &&
      addressProblem(bare, { allowPrivateNetworks: true }) === null
    )
  return !bare.includes('.') || /\.(local|lan|internal|home\.arpa)$/.test(bare)
}

/**
 * The base URL as stored: without trailing slashes (`/models` is appended), and without
 * credentials, query or fragment — it is shown to administrators, so it must not hide a secret.
 */
function normalizeBaseUrl(text: string, policy: OutboundPolicy, allowPrivate: boolean): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw invalidField('base_url', 'must be an http(s) URL', 'format', { format: 'uri' })
  }
  // The key travels to this URL, so only over TLS — plain http only on this machine, or on the
  // local network when the administrator allows a provider there.
  const plainAllowed =
    isLoopbackHost(url.hostname) || (allowPrivate && isLocalNetworkHost(url.hostname))
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && plainAllowed)) {
    throw invalidField(
      'base_url',
      allowPrivate
        ? 'must be an https URL (http only for loopback or a local-network host)'
        : 'must be an https URL (http only for 127.0.0.1, ::1 or localhost)',
      'format',
      { format: 'uri' },
    )
  }
  const literal = hostLiteralProblem(url.hostname, {
    ...policy,
    allowPrivateNetworks: policy.allowPrivateNetworks || allowPrivate,
  })
  if (literal !== null) throw invalidField('base_url', literal)
  if (url.username !== '' || url.password !== '')
    throw invalidField('base_url', 'must not contain credentials; set api_key instead')
  if (url.search !== '' || url.hash !== '')
    throw invalidField('base_url', 'must not have a query or fragment')
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

export async function updateAiSettings(
  deps: Deps,
  caller: Caller,
  patch: UpdateAiBody,
  ctx: RequestContext,
): Promise<AiView> {
  const { api_key, base_url, ...fields } = patch
  const change = { actor: caller.user, ctx, action: 'ai.update', fields: Object.keys(patch) }
  const stored = await updateSection(deps, AI_SECTION, change, (current) => {
    const allowPrivate = fields.allow_private_network ?? current.allow_private_network
    const policy = deps.config.outbound
    const baseUrl =
      base_url === undefined ? undefined : normalizeBaseUrl(base_url, policy, allowPrivate)
    // Switching the allowance off leaves no stored URL relying on it.
    if (baseUrl === undefined && allowPrivate !== current.allow_private_network)
      normalizeBaseUrl(current.base_url, policy, allowPrivate)
    // The stored key never follows base_url to another origin.
    if (
      baseUrl !== undefined &&
      new URL(baseUrl).origin !== new URL(current.base_url).origin &&
      current.api_key_encrypted !== null &&
      api_key === undefined
    ) {
      throw invalidField(
        'api_key',
        "must be sent again (or null to clear it) when base_url's origin changes",
      )
    }
    const next: StoredAi = {
      ...current,
      ...fields,
      base_url: baseUrl ?? current.base_url,
      api_key_encrypted: sealSecret(deps, AI_SECTION, current.api_key_encrypted, api_key),
    }
    // Suggestions need a key to authenticate with and a model to ask.
    assertUsableWhenEnabled(
      next.enabled,
      { api_key: next.api_key_encrypted, model: next.model },
      'AI',
    )
    return next
  })
  return toAiView(stored)
}

/**
 * The provider's models, sorted by id. The cache is keyed by a digest of the stored section, so any
 * change to the AI settings — on any instance — makes the next call fetch afresh.
 */
async function fetchModels(deps: Deps): Promise<AiModel[]> {
  const { stored: ai, row } = await readSection(deps, AI_SECTION)
  if (row === null || ai.api_key_encrypted === null) {
    throw new AppError('NOT_CONFIGURED', { message: 'No AI provider API key is configured.' })
  }
  const cacheKey = sha256Hex(row.value)
  const cached = deps.aiModels.get(cacheKey)
  if (cached !== undefined) return cached
  const apiKey = openSecret(deps, AI_SECTION, ai.api_key_encrypted, 'AI API key')
  let models: AiModel[]
  try {
    models = await deps.ai.listModels({
      baseUrl: ai.base_url,
      apiKey,
      allowPrivateNetwork: ai.allow_private_network,
    })
  } catch (error) {
    if (error instanceof AiProviderError)
      throw new AppError('UPSTREAM_FAILED', { message: error.message })
    throw error
  }
  models.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  deps.aiModels.set(cacheKey, models)
  return models
}

export async function listAiModels(deps: Deps, query: PageQuery): Promise<Page<AiModel>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  const afterId = decodeCursor(query.cursor)?.[0]
  const models = await fetchModels(deps)
  const rest = afterId === undefined ? models : models.filter((model) => model.id > afterId)
  return toPage(
    rest.slice(0, limit + 1),
    limit,
    (model) => model,
    (model) => [model.id, ''],
  )
}

/**
 * docs/API.md#ai-suggestions: available = AI configured and switched on; enabled = available and
 * wanted.
 */
export async function getAiSuggestionFlags(
  deps: Deps,
  user: UserRecord,
): Promise<{ available: boolean; enabled: boolean }> {
  const { stored: ai } = await readSection(deps, AI_SECTION)
  const available = ai.enabled && ai.api_key_encrypted !== null && ai.model !== null
  return { available, enabled: available && user.ai_suggestions_enabled }
}
