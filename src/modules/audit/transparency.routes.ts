import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static, TSchema } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import {
  AnchorBody,
  CheckpointView,
  ConsistencyProofQuery,
  ConsistencyProofView,
  InclusionProofQuery,
  InclusionProofView,
  IntegrityView,
  VerifierKeyView,
} from './transparency.schemas.js'
import {
  checkIntegrityNow,
  getConsistencyProof,
  getInclusionProof,
  getIntegrity,
  getLatestCheckpoint,
  getVerifierKeys,
  setAnchoring,
} from './transparency.service.js'

const tags = ['administration']

interface TransparencyRoute {
  method: 'GET' | 'POST' | 'PUT'
  url: string
  operationId: string
  summary: string
  querystring?: TSchema
  body?: TSchema
  response: TSchema
  run: (request: FastifyRequest) => Promise<unknown>
}

/**
 * One row of the table, typed from its own schemas: `run` receives the query and body as the
 * schemas describe them (the request was validated against those schemas before it runs).
 */
function route<Q extends TSchema, B extends TSchema>(
  row: Omit<TransparencyRoute, 'run' | 'querystring' | 'body'> & {
    querystring?: Q
    body?: B
    run: (input: { query: Static<Q>; body: Static<B>; request: FastifyRequest }) => Promise<unknown>
  },
): TransparencyRoute {
  return {
    ...row,
    run: (request) => row.run({ query: request.query, body: request.body, request }),
  }
}

/** The tamper-evident log's routes, all for administrators: one row each. */
function transparencyRoutes(deps: Deps): TransparencyRoute[] {
  return [
    route({
      method: 'GET',
      url: '/checkpoint',
      operationId: 'getAuditCheckpoint',
      summary:
        'The latest signed checkpoint of the audit Merkle tree (RFC 9162 tree head as a C2SP signed note)',
      response: CheckpointView,
      run: () => getLatestCheckpoint(deps),
    }),
    route({
      method: 'GET',
      url: '/proofs/inclusion',
      operationId: 'getAuditInclusionProof',
      summary: 'An RFC 9162 inclusion proof of one leaf (event) in the tree of a given size',
      querystring: InclusionProofQuery,
      response: InclusionProofView,
      run: ({ query }) => getInclusionProof(deps, query),
    }),
    route({
      method: 'GET',
      url: '/proofs/consistency',
      operationId: 'getAuditConsistencyProof',
      summary:
        'An RFC 9162 consistency proof: the tree of size first is a prefix of the tree of size second',
      querystring: ConsistencyProofQuery,
      response: ConsistencyProofView,
      run: ({ query }) => getConsistencyProof(deps, query),
    }),
    route({
      method: 'GET',
      url: '/verifier-key',
      operationId: 'getAuditVerifierKey',
      summary:
        "The audit log's public verifier key (C2SP signed-note format), for `switchboard audit verify --key`",
      response: VerifierKeyView,
      run: () => getVerifierKeys(deps),
    }),
    route({
      method: 'GET',
      url: '/integrity',
      operationId: 'getAuditIntegrity',
      summary:
        'The last integrity check of the audit log, the verifier key and the anchoring settings',
      response: IntegrityView,
      run: () => getIntegrity(deps),
    }),
    route({
      method: 'POST',
      url: '/integrity',
      operationId: 'checkAuditIntegrity',
      summary:
        'Checks the database against its signed checkpoints now (mails the administrators when it fails)',
      response: IntegrityView,
      run: () => checkIntegrityNow(deps),
    }),
    route({
      method: 'PUT',
      url: '/anchor',
      operationId: 'setAuditAnchoring',
      summary:
        'Sets (or clears) the webhook that receives the daily checkpoint besides the mail to administrators (audited)',
      body: AnchorBody,
      response: IntegrityView,
      run: ({ body, request }) =>
        setAnchoring(deps, callerOf(request).user, body, contextOf(request)),
    }),
  ]
}

/** /api/admin/audit-log: the tamper-evident log's checkpoints, proofs, key and integrity. */
export function auditTransparencyRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const row of transparencyRoutes(deps)) {
      app.route({
        method: row.method,
        url: row.url,
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: row.operationId,
          summary: row.summary,
          ...(row.querystring !== undefined && { querystring: row.querystring }),
          ...(row.body !== undefined && { body: row.body }),
          response: { 200: row.response },
        },
        handler: (request) => row.run(request),
      })
    }
  }
}
