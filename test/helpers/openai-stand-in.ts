/**
 * A small OpenAI-compatible API on 127.0.0.1 (node:http): `GET /v1/models` with a Bearer key, and
 * `POST /v1/chat/completions` answered by a replaceable `chat` function, every request recorded.
 * Counts the calls (to prove caching) and can misbehave on demand. A wrong key is answered the way
 * careless providers do, quoting the key back, so tests can prove it never reaches a client.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type StandInMode =
  'ok' | 'server-error' | 'not-json' | 'no-list' | 'redirect' | 'slow' | 'oversized'

/** One chat completion request as received. */
export interface ChatRequestSeen {
  method: string
  path: string
  authorization: string | undefined
  body: {
    model?: string
    messages?: Array<{ role: string; content: string }>
    max_tokens?: number
    response_format?: { type: string }
  } & Record<string, unknown>
}

/**
 * How the stand-in answers a chat request: a status and the message content (a string, sent as
 * the first choice; an object, sent as the whole body), or 'stall' (headers never sent).
 */
export type ChatReply = { status: number; content: string | object } | 'stall'

export interface OpenAiStandIn {
  /** Chat completion requests received, in order. */
  chatRequests: ChatRequestSeen[]
  chat: (request: ChatRequestSeen) => ChatReply
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string
  apiKey: string
  /** Requests received on /v1/models, with the Authorization header each carried. */
  calls: Array<{ authorization: string | undefined }>
  mode: StandInMode
  models: Array<{ id: string; owned_by?: string }>
  /**
   * In 'oversized' mode: how many bytes of the (150 MB, chunked, no Content-Length) list were
   * written before the client stopped reading.
   */
  oversizedBytesWritten: number
  close(): Promise<void>
}

/**
 * A model list of 150 MB, written chunk by chunk without a Content-Length and with backpressure:
 * a client that stops reading stops the writing, so `oversizedBytesWritten` shows how much it took.
 */
function streamOversizedList(response: http.ServerResponse, standIn: OpenAiStandIn): void {
  const total = 150 * 1024 * 1024
  const entry = Buffer.from(`{"object":"model","id":"m-${'x'.repeat(1000)}","owned_by":"system"},`)
  standIn.oversizedBytesWritten = 0
  response.writeHead(200, { 'content-type': 'application/json' })
  response.write('{"object":"list","data":[')
  const pump = (): void => {
    while (standIn.oversizedBytesWritten < total) {
      standIn.oversizedBytesWritten += entry.length
      if (!response.write(entry)) return void response.once('drain', pump)
    }
    response.end('{"id":"last"}]}')
  }
  response.on('close', () => response.removeAllListeners('drain'))
  pump()
}

export async function startOpenAiStandIn(apiKey: string): Promise<OpenAiStandIn> {
  const standIn = {
    apiKey,
    calls: [],
    chatRequests: [],
    chat: (): ChatReply => ({
      status: 200,
      content: JSON.stringify({ title: 'A title', slug: 'a-title', tags: ['docs'] }),
    }),
    mode: 'ok',
    oversizedBytesWritten: 0,
    models: [
      { id: 'gpt-4o-mini', owned_by: 'system' },
      { id: 'gpt-4o', owned_by: 'system' },
      { id: 'text-embedding-3-small', owned_by: 'openai-internal' },
      { id: 'local-model' },
    ],
  } as unknown as OpenAiStandIn
  const json = (response: http.ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(JSON.stringify(body))
  }
  const stalled = new Set<http.ServerResponse>()
  const answerChat = (request: http.IncomingMessage, response: http.ServerResponse) => {
    let text = ''
    request.on('data', (chunk: Buffer) => (text += chunk.toString()))
    request.on('end', () => {
      const seen: ChatRequestSeen = {
        method: request.method ?? '',
        path: request.url ?? '',
        authorization: request.headers.authorization,
        body: JSON.parse(text) as ChatRequestSeen['body'],
      }
      standIn.chatRequests.push(seen)
      const reply = standIn.chat(seen)
      if (reply === 'stall') return void stalled.add(response)
      if (typeof reply.content === 'object') return json(response, reply.status, reply.content)
      json(response, reply.status, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.content },
            finish_reason: 'stop',
          },
        ],
      })
    })
  }
  const server = http.createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/v1/chat/completions')
      return answerChat(request, response)
    if (request.method !== 'GET' || request.url !== '/v1/models')
      return json(response, 404, { error: { code: 'not_found' } })
    standIn.calls.push({ authorization: request.headers.authorization })
    if (request.headers.authorization !== `Bearer ${standIn.apiKey}`) {
      const sent = request.headers.authorization?.replace(/^Bearer /, '') ?? ''
      return json(response, 401, {
        error: {
          message: `Incorrect API key provided: ${sent}.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      })
    }
    switch (standIn.mode) {
      case 'server-error':
        return json(response, 500, {
          error: { message: 'The server had an error', type: 'server_error' },
        })
      case 'not-json':
        response.writeHead(200, { 'content-type': 'text/html' })
        return response.end('<html>gateway</html>')
      case 'no-list':
        return json(response, 200, { object: 'list' })
      case 'redirect':
        response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' })
        return response.end()
      case 'oversized':
        return streamOversizedList(response, standIn)
      case 'slow':
        return void setTimeout(() => json(response, 200, { object: 'list', data: [] }), 2_000)
      default:
        return json(response, 200, {
          object: 'list',
          data: standIn.models.map((m) => ({ object: 'model', created: 1700000000, ...m })),
        })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(standIn, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        stalled.clear()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}
