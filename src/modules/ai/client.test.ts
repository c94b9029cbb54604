/** The AI adapter on its own: the timeout that keeps a hanging provider from holding a request. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../../test/helpers/openai-stand-in.js'
import { AiProviderError, createAiClient } from './client.js'

let provider: OpenAiStandIn
beforeAll(async () => {
  provider = await startOpenAiStandIn('sk-adapter-test-key')
})
afterAll(async () => {
  await provider?.close()
})

describe('createAiClient', () => {
  it('lists models with the key as Bearer credential', async () => {
    const models = await createAiClient().listModels({ baseUrl: provider.baseUrl, apiKey: 'sk-adapter-test-key' })
    expect(models).toContainEqual({ id: 'local-model', owned_by: null })
    expect(provider.calls.at(-1)).toEqual({ authorization: 'Bearer sk-adapter-test-key' })
  })

  it('gives up after its timeout', async () => {
    provider.mode = 'slow'
    const started = Date.now()
    const error = await createAiClient({ timeoutMs: 200 })
      .listModels({ baseUrl: provider.baseUrl, apiKey: 'sk-adapter-test-key' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AiProviderError)
    expect((error as Error).message).toBe('The AI provider did not answer within 0.2 seconds.')
    expect(Date.now() - started).toBeLessThan(1_500)
  })
})
