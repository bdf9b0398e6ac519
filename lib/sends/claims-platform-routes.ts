import { defineRoute } from '../http/route';
import { idParams } from '../http/schemas';
import {
  claimsPlatformProfilesResponse,
  claimsPlatformQuoteBody,
  claimsPlatformQuoteResponse,
  claimsPlatformSendBody,
  submissionResponse,
  submissionsResponse,
} from './claims-platform-schemas';
import { claimsPlatformQuoteExamples, claimsPlatformSendExamples } from './examples';

export const claimsPlatformRoutes = {
  profiles: defineRoute({
    name: 'claimsPlatformProfiles',
    method: 'GET',
    path: '/api/claims/{id}/claims-platform-profiles',
    auth: 'user',
    tag: 'sends',
    summary:
      'The team’s shopping and depreciation profiles on the claims platform, for the submit modal (empty lists for a training claim). 409 without a claims platform token or base URL; 502 when the platform refuses or cannot be reached.',
    handler: 'api/sends/claims-platform-profiles',
    params: idParams,
    response: claimsPlatformProfilesResponse,
    errors: [404, 409, 502],
  }),
  quote: defineRoute({
    name: 'claimsPlatformQuote',
    method: 'POST',
    path: '/api/claims/{id}/claims-platform-quote',
    auth: 'user',
    tag: 'sends',
    summary:
      'Prices a claims platform send of the selected rooms (all active rooms when none are named): the active items not yet submitted, at 1 credit each; enterprise teams and training claims pay nothing.',
    handler: 'api/sends/claims-platform-quote',
    params: idParams,
    body: claimsPlatformQuoteBody,
    response: claimsPlatformQuoteResponse,
    examples: claimsPlatformQuoteExamples,
    errors: [404],
  }),
  submit: defineRoute({
    name: 'submitToClaimsPlatform',
    method: 'POST',
    path: '/api/claims/{id}/submit-to-claims-platform',
    auth: 'actor',
    tag: 'sends',
    summary:
      'Submits the selected rooms’ active, not yet submitted items to the claims platform, authenticated as the team (its token, else the global bearer token). ' +
      'Charges 1 credit per item first (402 when short; enterprise teams and training claims are free; training claims are dry runs), creates or updates the remote claim and its rooms, then answers with the Submission in processing: ' +
      'each item, its photos and the platform’s analysis go in the background, and the Submission turns complete when the last item is done. A failed item stays unsubmitted for a later send. ' +
      '400 when nothing is left to submit; 409 without a token or a configured platform; 502 when the platform refuses or cannot be reached (the charge is refunded). ' +
      'A repeated request (a double click) is charged and sent once: one that arrived before the send finished answers the same Submission. A retry carrying the first request’s Idempotency-Key replays the first answer at any time.',
    handler: 'api/sends/submit-to-claims-platform',
    params: idParams,
    body: claimsPlatformSendBody,
    response: submissionResponse,
    examples: claimsPlatformSendExamples,
    errors: [400, 402, 404, 409, 502],
    idempotent: true,
  }),
  submissions: defineRoute({
    name: 'listSubmissions',
    method: 'GET',
    path: '/api/claims/{id}/submissions',
    auth: 'actor',
    tag: 'sends',
    summary:
      'The claim’s claims platform submissions, newest first (status, item and photo counts, claim key, end-to-end time), with the claim’s active item total and how many are not submitted yet.',
    handler: 'api/sends/list-submissions',
    params: idParams,
    response: submissionsResponse,
    errors: [404],
  }),
};
