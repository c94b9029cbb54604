import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../auth/hook.js'
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
import { checkIntegrityNow, getConsistencyProof, getInclusionProof, getIntegrity, getLatestCheckpoint, setAnchoring } from './transparency.service.js'

const tags = ['administration']

/** /api/admin/audit-log: the tamper-evident log's checkpoints, proofs, key and integrity (issue 30). */
export function auditTransparencyRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/checkpoint',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getAuditCheckpoint',
          summary: 'The latest signed checkpoint of the audit Merkle tree (RFC 9162 tree head as a C2SP signed note)',
          response: { 200: CheckpointView },
        },
      },
      async () => getLatestCheckpoint(deps),
    )
    app.get(
      '/proofs/inclusion',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getAuditInclusionProof',
          summary: 'An RFC 9162 inclusion proof of one leaf (event) in the tree of a given size',
          querystring: InclusionProofQuery,
          response: { 200: InclusionProofView },
        },
      },
      async (request) => getInclusionProof(deps, request.query),
    )
    app.get(
      '/proofs/consistency',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getAuditConsistencyProof',
          summary: 'An RFC 9162 consistency proof: the tree of size first is a prefix of the tree of size second',
          querystring: ConsistencyProofQuery,
          response: { 200: ConsistencyProofView },
        },
      },
      async (request) => getConsistencyProof(deps, request.query),
    )
    app.get(
      '/verifier-key',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getAuditVerifierKey',
          summary: "The audit log's public verifier key (C2SP signed-note format), for `switchboard audit verify --key`",
          response: { 200: VerifierKeyView },
        },
      },
      async () => ({ origin: deps.auditSigner.name, verifier_key: deps.auditSigner.verifierKey }),
    )
    app.get(
      '/integrity',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getAuditIntegrity',
          summary: 'The last integrity check of the audit log, the verifier key and the anchoring settings',
          response: { 200: IntegrityView },
        },
      },
      async () => getIntegrity(deps),
    )
    app.post(
      '/integrity',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'checkAuditIntegrity',
          summary: 'Checks the database against its signed checkpoints now (mails the administrators when it fails)',
          response: { 200: IntegrityView },
        },
      },
      async () => checkIntegrityNow(deps),
    )
    app.put(
      '/anchor',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'setAuditAnchoring',
          summary: 'Sets (or clears) the webhook that receives the daily checkpoint besides the mail to administrators (audited)',
          body: AnchorBody,
          response: { 200: IntegrityView },
        },
      },
      async (request) => setAnchoring(deps, callerOf(request).user, request.body, contextOf(request)),
    )
  }
}
