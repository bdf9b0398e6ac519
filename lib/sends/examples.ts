/**
 * Examples of the sends' requests and answers for the API reference
 * (lib/http/openapi.ts shows them beside the schemas): which ids come from
 * the profile and claim pickers, and what an empty body means.
 */
import { bodyExample, responseExample } from '../http/route';
import {
  claimsPlatformQuoteBody,
  claimsPlatformQuoteResponse,
  claimsPlatformSendBody,
  submissionResponse,
} from './claims-platform-schemas';
import { estimationSendBody, estimationSendResponse } from './estimation-schemas';

const KITCHEN = '8d4f2e6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a';
const LIVING_ROOM = '2c9e4b7d-6a1f-4e3b-b8d2-7f0a5c1e9d3b';

export const claimsPlatformQuoteExamples = {
  body: {
    rooms: bodyExample(claimsPlatformQuoteBody, 'Price the send of two rooms', { room_ids: [KITCHEN, LIVING_ROOM] }),
    everything: bodyExample(claimsPlatformQuoteBody, 'Price the send of every active room', {}),
  },
  response: {
    quote: responseExample(claimsPlatformQuoteResponse, '37 items not submitted yet, at 1 credit each', {
      item_count: 37,
      credits: 37,
      credit_cost_per_item: 1,
      already_submitted: 12,
      enterprise: false,
      training: false,
    }),
  },
};

export const claimsPlatformSendExamples = {
  body: {
    chosenProfiles: bodyExample(
      claimsPlatformSendBody,
      'Two rooms, with the profiles picked from claims-platform-profiles',
      {
        room_ids: [KITCHEN, LIVING_ROOM],
        shopping_profile_id: 'shop-standard-retail',
        depreciation_profile_id: 'dep-household-2024',
      },
    ),
    defaults: bodyExample(claimsPlatformSendBody, 'Every active room, with the platform’s default profiles', {}),
  },
  response: {
    processing: responseExample(submissionResponse, 'Accepted: the items go in the background', {
      id: 'f4b8c2d6-1e3a-4b5c-9d7e-2a4c6e8b0d1f',
      claim_id: '5b0e7c1a-3d2f-4a8b-9c6e-1f2a3b4c5d6e',
      status: 'processing',
      item_count: 37,
      photo_count: 52,
      done_count: 0,
      failed_count: 0,
      credits_charged: 37,
      claim_key: 'CLM-2025-004817',
      deep_link: 'https://claims-platform.example.com/claims/CLM-2025-004817',
      dry_run: false,
      error: null,
      created_at: '2025-06-02T14:30:00Z',
      completed_at: null,
      processing_seconds: null,
    }),
  },
};

export const estimationSendExamples = {
  body: {
    newClaim: bodyExample(estimationSendBody, 'Every unsent item to a new remote claim, with the pricing picked', {
      depreciation_schedule_id: '7a3c5e9b-2d4f-4a6c-8e1b-3d5f7a9c1e2b',
      shopping_profile_id: '9e1b3d5f-7a2c-4e6b-a8d0-1f3b5d7e9a2c',
    }),
    append: bodyExample(estimationSendBody, 'Append to a claim already on the platform (from the claim picker)', {
      target_claim_key: 'EST-88213',
    }),
    ticked: bodyExample(estimationSendBody, 'Only the items ticked in the modal (sent ones among them are left out)', {
      item_ids: ['item-0193', 'item-0194', 'item-0201'],
    }),
  },
  response: {
    created: responseExample(estimationSendResponse, 'A new remote claim with three items', {
      claim_key: 'EST-90412',
      claim_id: '41872',
      created: true,
      items_sent: 3,
      item_ids: ['item-0193', 'item-0194', 'item-0201'],
      added: 3,
      skipped: 0,
      credits_charged: 3,
      photos_included: 5,
      dry_run: false,
      warnings: [],
      sent_at: '2025-06-02T14:31:12Z',
      deep_link: 'https://estimation-platform.example.com/claims/41872',
    }),
  },
};
