/**
 * What the link-suggestion route tests share: the OpenAI-compatible stand-in, a page server on
 * 127.0.0.1 whose pages the suggestions read, and the AI settings an administrator puts through
 * the API.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'
import type { TestContext } from './app.js'
import { bearer } from './factories.js'
import { startOpenAiStandIn, type OpenAiStandIn } from './openai-stand-in.js'
import { AI_API_KEY } from './secret-scan.js'

export interface SuggestionStandIns {
  provider: OpenAiStandIn
  /** The page server's origin, `http://127.0.0.1:<port>`. */
  base: string
  close(): Promise<void>
}

/** The stand-in model, and a page server answering each path with the HTML `page` gives. */
export async function startSuggestionStandIns(
  page: (path: string) => string,
): Promise<SuggestionStandIns> {
  const provider = await startOpenAiStandIn(AI_API_KEY)
  const pages = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(page(path))
  })
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
  return {
    provider,
    base: `http://127.0.0.1:${(pages.address() as AddressInfo).port}`,
    async close() {
      await provider.close()
      pages.closeAllConnections()
      await new Promise((resolve) => pages.close(resolve))
    },
  }
}

/** PUT /api/admin/settings/ai as the administrator. */
export function putAiSettings(
  t: TestContext,
  adminToken: string,
  payload: Record<string, unknown>,
) {
  return t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/ai',
    headers: bearer(adminToken),
    payload,
  })
}

/** Turns suggestions on against the stand-in: model `gpt-test`, a 2 s timeout. */
export async function enableSuggestions(
  t: TestContext,
  adminToken: string,
  provider: OpenAiStandIn,
): Promise<void> {
  const response = await putAiSettings(t, adminToken, {
    enabled: true,
    base_url: provider.baseUrl,
    model: 'gpt-test',
    api_key: AI_API_KEY,
    timeout_seconds: 2,
  })
  expect(response.statusCode).toBe(200)
}
