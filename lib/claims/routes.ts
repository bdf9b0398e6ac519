import * as z from 'zod';
import { defineRoute } from '../http/route';
import { idParams } from '../http/schemas';
import { claimCreateBody, claimListQuery, claimPatchBody, claimResponse } from './schemas';

export const claimRoutes = {
  create: defineRoute({
    name: 'createClaim', method: 'POST', path: '/api/claims', auth: 'actor', tag: 'claims',
    summary: "Create a claim for the caller's team.", handler: 'api/claims/create-claim',
    body: claimCreateBody, response: claimResponse, successStatus: 201, idempotent: true,
  }),
  list: defineRoute({
    name: 'listClaims', method: 'GET', path: '/api/claims', auth: 'user', tag: 'claims',
    summary: 'Active claims with spend; ?archived=true lists archived ones.', handler: 'api/claims/list-claims',
    query: claimListQuery, response: z.array(claimResponse),
  }),
  get: defineRoute({
    name: 'getClaim', method: 'GET', path: '/api/claims/{id}', auth: 'user', tag: 'claims',
    summary: "One claim with spend; 403 for another team's claim.", handler: 'api/claims/get-claim',
    params: idParams, response: claimResponse, errors: [403, 404],
  }),
  patch: defineRoute({
    name: 'patchClaim', method: 'PATCH', path: '/api/claims/{id}', auth: 'actor', tag: 'claims',
    summary: 'Inline edit of claim fields (restorable).', handler: 'api/claims/patch-claim',
    params: idParams, body: claimPatchBody, response: claimResponse, errors: [404],
  }),
  archive: defineRoute({
    name: 'archiveClaim', method: 'POST', path: '/api/claims/{id}/archive', auth: 'actor', tag: 'claims',
    summary: 'Archive a claim; 400 when it has been submitted.', handler: 'api/claims/archive-claim',
    params: idParams, response: claimResponse, errors: [400, 404],
  }),
  unarchive: defineRoute({
    name: 'unarchiveClaim', method: 'POST', path: '/api/claims/{id}/unarchive', auth: 'actor', tag: 'claims',
    summary: 'Bring a claim back from the archive.', handler: 'api/claims/unarchive-claim',
    params: idParams, response: claimResponse, errors: [404],
  }),
  delete: defineRoute({
    name: 'deleteClaim', method: 'DELETE', path: '/api/claims/{id}', auth: 'admin', tag: 'claims',
    summary: 'Admin: permanently delete a claim and everything beneath it, including stored files. Not team-scoped.',
    handler: 'api/claims/delete-claim', params: idParams, errors: [403, 404, 503],
    response: z.object({ deleted: z.boolean(), id: z.uuid() }),
  }),
};
