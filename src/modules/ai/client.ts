/**
 * The AI adapter: talks to an OpenAI-compatible HTTP API (docs/API.md#settings) with the global
 * fetch. Failures come back as AiProviderError with a message safe to show: the status and the
 * provider's machine-readable error code, never the provider's text, which may quote the key.
 * The connection goes only where the outbound policy allows, and the answer is read up to a byte
 * cap (lib/outbound.ts).
 */
import {
  createOutboundFetch,
  OutboundRefusedError,
  ResponseTooLargeError,
  type OutboundPolicy,
} from '../../lib/outbound.js'

export interface AiConnection {
  /** Without a trailing slash, e.g. https://api.openai.com/v1. */
  baseUrl: string
  apiKey: string
}

export interface AiModel {
  id: string
  owned_by: string | null
}

export interface AiClient {
  listModels(connection: AiConnection): Promise<AiModel[]>
}

export class AiProviderError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AiProviderError'
  }
}

export const DEFAULT_AI_TIMEOUT_MS = 10_000
/** A large provider's list (hundreds of models) is well under 1 MiB. */
export const DEFAULT_AI_MAX_RESPONSE_BYTES = 4 * 1024 * 1024
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/

async function providerErrorCode(response: Response): Promise<string | null> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown; type?: unknown } }
    const code = body.error?.code ?? body.error?.type
    return typeof code === 'string' && ERROR_CODE.test(code) ? code : null
  } catch {
    return null
  }
}

function toModels(body: unknown): AiModel[] {
  const data = (body as { data?: unknown } | null)?.data
  if (!Array.isArray(data))
    throw new AiProviderError('The AI provider answered without a model list.')
  const models = new Map<string, AiModel>()
  for (const entry of data as Array<{ id?: unknown; owned_by?: unknown } | null>) {
    if (typeof entry?.id !== 'string' || entry.id === '') continue
    models.set(entry.id, {
      id: entry.id,
      owned_by: typeof entry.owned_by === 'string' ? entry.owned_by : null,
    })
  }
  return [...models.values()]
}

export function createAiClient(options: {
  policy: OutboundPolicy
  timeoutMs?: number
  maxResponseBytes?: number
}): AiClient {
  const timeout = options.timeoutMs ?? DEFAULT_AI_TIMEOUT_MS
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_AI_MAX_RESPONSE_BYTES
  const fetch = createOutboundFetch({ policy: options.policy, maxResponseBytes })
  return {
    async listModels(connection) {
      try {
        const response = await fetch(`${connection.baseUrl}/models`, {
          headers: { authorization: `Bearer ${connection.apiKey}`, accept: 'application/json' },
          // A redirect is refused rather than followed: it must not carry the key to another place.
          redirect: 'manual',
          signal: AbortSignal.timeout(timeout),
        })
        if (response.status !== 200) {
          const code =
            response.status >= 300 && response.status < 400
              ? null
              : await providerErrorCode(response)
          throw new AiProviderError(
            `The AI provider answered HTTP ${response.status}${code === null ? '' : ` (${code})`}.`,
          )
        }
        return toModels(await response.json())
      } catch (error) {
        if (error instanceof AiProviderError) throw error
        if (error instanceof ResponseTooLargeError)
          throw new AiProviderError(
            `The AI provider's answer is larger than ${maxResponseBytes} bytes; it was not read.`,
          )
        // undici reports a refused connection as `fetch failed` with the guard's error as its
        // cause.
        const refused =
          error instanceof OutboundRefusedError ? error : (error as { cause?: unknown })?.cause
        if (refused instanceof OutboundRefusedError)
          throw new AiProviderError(`The AI provider was not contacted: ${refused.message}.`)
        const e = error as Error & { cause?: { code?: unknown; message?: unknown } }
        if (e.name === 'TimeoutError')
          throw new AiProviderError(
            `The AI provider did not answer within ${timeout / 1000} seconds.`,
          )
        if (e instanceof SyntaxError)
          throw new AiProviderError('The AI provider answered with something other than JSON.')
        const cause =
          [e.cause?.code, e.cause?.message].find((part) => typeof part === 'string') ??
          'network error'
        throw new AiProviderError(`The AI provider could not be reached (${String(cause)}).`)
      }
    },
  }
}
