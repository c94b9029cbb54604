/**
 * The AI adapter on its own: the timeout that keeps a hanging provider from holding a request, and
 * the byte cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../../test/helpers/openai-stand-in.js'
import { AiProviderError, createAiClient } from './client.js'

const policy = { allowPrivateNetworks: true }
let provider: OpenAiStandIn
beforeAll(async () => {
  provider = await startOpenAiStandIn('sk-adapter-test-key')
})
afterAll(async () => {
  await provider?.close()
})

describe('createAiClient', () => {
  it('lists models with the key as Bearer credential', async () => {
    const models = await createAiClient({ policy }).listModels({
      baseUrl: provider.baseUrl,
      apiKey: 'sk-adapter-test-key',
    })
    expect(models).toContainEqual({ id: 'local-model', owned_by: null })
    expect(provider.calls.at(-1)).toEqual({ authorization: 'Bearer sk-adapter-test-key' })
  })

  it('gives up after its timeout', async () => {
    provider.mode = 'slow'
    const started = Date.now()
    const error = await createAiClient({ policy, timeoutMs: 200 })
      .listModels({ baseUrl: provider.baseUrl, apiKey: 'sk-adapter-test-key' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AiProviderError)
    expect((error as Error).message).toBe('The AI provider did not answer within 0.2 seconds.')
    expect(Date.now() - started).toBeLessThan(1_500)
    provider.mode = 'ok'
  })

  it('reads_a_model_list_only_up_to_the_byte_cap: a 150 MB answer is refused with a clear error and bounded memory', async () => {
    provider.mode = 'oversized'
    try {
      global.gc?.()
      const before = process.memoryUsage().rss
      const error = await createAiClient({ policy, maxResponseBytes: 1024 * 1024 })
        .listModels({ baseUrl: provider.baseUrl, apiKey: 'sk-adapter-test-key' })
        .catch((e: unknown) => e)
      const grown = process.memoryUsage().rss - before
      expect(error).toBeInstanceOf(AiProviderError)
      expect((error as Error).message).toBe(
        "The AI provider's answer is larger than 1048576 bytes; it was not read.",
      )
      // The server could write little more than the cap plus socket buffers before the client hung
      // up.
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(provider.oversizedBytesWritten).toBeLessThan(16 * 1024 * 1024)
      expect(grown).toBeLessThan(64 * 1024 * 1024)
    } finally {
      provider.mode = 'ok'
    }
  })
})
