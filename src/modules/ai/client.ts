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
  /**
   * The administrator's switch for a provider on a private network: this connection may reach
   * private and loopback addresses even where the instance's outbound rules refuse them.
   */
  allowPrivateNetwork?: boolean
}

/** One chat completion: the request body as sent, and the whole call's deadline. */
export interface ChatRequest {
  body: Record<string, unknown>
  signal: AbortSignal
}

/** A provider's answer to a chat completion: the status and, for 200, the first choice's text. */
export type ChatAnswer = { status: 200; content: string } | { status: number; content: null }

export interface AiModel {
  id: string
  owned_by: string | null
}

export interface AiClient {
  listModels(connection: AiConnection): Promise<AiModel[]>
  /**
   * `POST {base_url}/chat/completions`. A non-200 status is an answer, not an error (the caller
   * decides on a retry); anything else failing is AiProviderError, the deadline's abort included.
   */
  chat(connection: AiConnection, request: ChatRequest): Promise<ChatAnswer>
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
/** A chat answer of at most 400 tokens is a few KiB; more is not read. */
const CHAT_MAX_RESPONSE_BYTES = 256 * 1024
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
  const privatePolicy = { ...options.policy, allowPrivateNetworks: true }
  const fetches = {
    models: createOutboundFetch({ policy: options.policy, maxResponseBytes }),
    privateModels: createOutboundFetch({ policy: privatePolicy, maxResponseBytes }),
    chat: createOutboundFetch({
      policy: options.policy,
      maxResponseBytes: CHAT_MAX_RESPONSE_BYTES,
    }),
    privateChat: createOutboundFetch({
      policy: privatePolicy,
      maxResponseBytes: CHAT_MAX_RESPONSE_BYTES,
    }),
  }
  return {
    async chat(connection, request) {
      const fetch = connection.allowPrivateNetwork === true ? fetches.privateChat : fetches.chat
      try {
        const response = await fetch(`${connection.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: {
            ...(connection.apiKey === '' ? {} : { authorization: `Bearer ${connection.apiKey}` }),
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify(request.body),
          redirect: 'manual',
          signal: request.signal,
        })
        if (response.status !== 200) {
          await response.body?.cancel().catch(() => undefined)
          return { status: response.status, content: null }
        }
        const body = (await response.json()) as {
          choices?: Array<{ message?: { content?: unknown } }>
        } | null
        const content = body?.choices?.[0]?.message?.content
        if (typeof content !== 'string')
          throw new AiProviderError('The AI provider answered without a message.')
        return { status: 200, content }
      } catch (error) {
        if (error instanceof AiProviderError) throw error
        if (request.signal.aborted)
          throw new AiProviderError('The AI provider did not answer in time.')
        throw new AiProviderError(
          error instanceof SyntaxError
            ? 'The AI provider answered with something other than JSON.'
            : 'The AI provider could not be reached.',
        )
      }
    },

    async listModels(connection) {
      const fetch = connection.allowPrivateNetwork === true ? fetches.privateModels : fetches.models
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
