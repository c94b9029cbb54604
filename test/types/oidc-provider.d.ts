/** The little of oidc-provider's API that the test stand-in uses (the package ships no types). */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export interface ProviderContext {
    path: string
    method: string
    status: number
    body: unknown
  }

  export interface InteractionDetails {
    uid: string
    params: Record<string, unknown>
    prompt: { name: string; details: Record<string, unknown> }
  }

  export interface Grant {
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>
    Grant: new (properties: { accountId: string; clientId: string }) => Grant
    on(event: string, listener: (...args: unknown[]) => void): void
  }
}
