import { defineRoute } from '../http/route';
import { idParams } from '../http/schemas';
import { claimResponse } from '../claims/schemas';
import {
  estimationClaimsQuery,
  estimationClaimsResponse,
  estimationItemsResponse,
  estimationLockBody,
  estimationProfilesResponse,
  estimationQuoteResponse,
  estimationSendBody,
  estimationSendResponse,
} from './estimation-schemas';
import { estimationSendExamples } from './examples';

export const estimationRoutes = {
  quote: defineRoute({
    name: 'estimationPlatformQuote',
    method: 'GET',
    path: '/api/claims/{id}/estimation-platform-quote',
    auth: 'user',
    tag: 'sends',
    summary:
      'Prices a send to the estimation platform: the unsent items, the credits per item and the total now. Sent items are free; enterprise teams and training claims pay nothing (credit_cost_per_item 0).',
    handler: 'api/sends/estimation-platform-quote',
    params: idParams,
    response: estimationQuoteResponse,
    errors: [404],
  }),
  profiles: defineRoute({
    name: 'estimationPlatformProfiles',
    method: 'GET',
    path: '/api/claims/{id}/estimation-platform-profiles',
    auth: 'user',
    tag: 'sends',
    summary:
      'The estimation platform’s pricing catalog for the send modal: depreciation schedules with their shopping profiles, and the preselection (the default schedule, else the first; its default profile, else the first). ' +
      'available=false with an empty list when the platform is not configured for the team or answers 404; 409 when it refuses the team’s key; 502 when it is down.',
    handler: 'api/sends/estimation-platform-profiles',
    params: idParams,
    response: estimationProfilesResponse,
    errors: [404, 409, 502],
  }),
  claims: defineRoute({
    name: 'estimationPlatformClaims',
    method: 'GET',
    path: '/api/claims/{id}/estimation-platform-claims',
    auth: 'user',
    tag: 'sends',
    summary:
      'The team’s claims on the estimation platform, to append to instead of creating one: searchable by claim number or policyholder (q), archived ones left out. ' +
      'available=false with an empty list when the platform is not configured for the team or answers 404; 409 when it refuses the team’s key; 502 when it is down.',
    handler: 'api/sends/estimation-platform-claims',
    params: idParams,
    query: estimationClaimsQuery,
    response: estimationClaimsResponse,
    errors: [404, 409, 502],
  }),
  items: defineRoute({
    name: 'estimationPlatformItems',
    method: 'GET',
    path: '/api/claims/{id}/estimation-platform-items',
    auth: 'user',
    tag: 'sends',
    summary:
      'Every active item of the claim (not archived, in a room not archived) with whether and when it was sent to the estimation platform.',
    handler: 'api/sends/estimation-platform-items',
    params: idParams,
    response: estimationItemsResponse,
    errors: [404],
  }),
  submit: defineRoute({
    name: 'submitToEstimationPlatform',
    method: 'POST',
    path: '/api/claims/{id}/submit-to-estimation-platform',
    auth: 'actor',
    tag: 'sends',
    summary:
      'Sends the claim’s unsent items (or the unsent ones among item_ids) to the estimation platform. The server picks the destination: the linked remote claim; else target_claim_key, which becomes the link; else a new remote claim (with the pricing choice). ' +
      'Charges the credits per item first (402 with the billing body when short; enterprise teams and training claims are free; a failed send is refunded), then stamps the items sent, which freezes them. Training claims are dry runs. ' +
      '400 when nothing new would travel; 409 without a configured platform or team key, for a key the platform refuses, for an append to a remote claim that is gone, and while another send of the claim runs for longer than a moment; 422 passes the platform’s validation detail through; 502 when it fails or cannot be reached. ' +
      'A repeated or concurrent request for the same items charges and sends once. ' +
      '503 with Retry-After when the send outlasts the request (a slow platform or billing service): it carries on in the background and marks its items sent when done; asked again while it runs, the request waits for it and answers with its result.',
    handler: 'api/sends/submit-to-estimation-platform',
    params: idParams,
    body: estimationSendBody,
    response: estimationSendResponse,
    examples: estimationSendExamples,
    errors: [400, 402, 404, 409, 502, 503],
    idempotent: true,
  }),
  itemLock: defineRoute({
    name: 'estimationPlatformItemLock',
    method: 'POST',
    path: '/api/claims/{id}/estimation-platform-item-lock',
    auth: 'admin',
    tag: 'sends',
    summary:
      'Admins only: {unlocked: true} lets people edit, archive, merge and change photos of items already sent to the estimation platform; {unlocked: false} restores the freeze. Recorded in the activity feed (not undoable).',
    handler: 'api/sends/estimation-platform-item-lock',
    params: idParams,
    body: estimationLockBody,
    response: claimResponse,
    errors: [403, 404],
  }),
};
