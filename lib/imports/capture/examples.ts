/**
 * Examples of the capture source import's manifest and answer for the API
 * reference (lib/http/openapi.ts shows them beside the schemas): the three
 * targets, and the select / exclude scopes with the filters.
 */
import { bodyExample, responseExample } from '../../http/route';
import { importBatchExample } from '../examples';
import { importBatchResponse } from '../schemas';
import { importBody } from './schemas';

const CLAIM_ID = '5b0e7c1a-3d2f-4a8b-9c6e-1f2a3b4c5d6e';

export const captureImportExamples = {
  body: {
    newClaim: bodyExample(importBody, 'Everything of an assignment into a new claim numbered after its reference', {
      assignment_id: 'asg_40912',
      target: { mode: 'new_claim' },
    }),
    someRooms: bodyExample(
      importBody,
      'Two locations into an existing claim, photos submitted by the field team only, one photo left out',
      {
        assignment_id: 'asg_40912',
        target: { mode: 'existing_claim', claim_id: CLAIM_ID },
        select: [
          { scope: 'location', id: 'loc_kitchen' },
          { scope: 'location', id: 'loc_garage' },
        ],
        exclude: [{ scope: 'media', ids: ['med_88120'] }],
        filters: { types: ['photo'], submitted_only: true },
      },
    ),
    intoRoom: bodyExample(importBody, 'One group of photos into a room of a claim', {
      assignment_id: 'asg_40912',
      target: { mode: 'room', room_id: '8d4f2e6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a' },
      select: [{ scope: 'group', id: 'grp_electronics' }],
    }),
  },
  response: {
    importing: responseExample(
      importBatchResponse,
      'Saved and running in the background',
      importBatchExample({
        kind: 'capture_source',
        claim_id: CLAIM_ID,
        connection_id: '3a5c7e9b-1d2f-4b6a-8c0e-2f4a6c8e0b1d',
        manifest: { assignment_id: 'asg_40912', target: { mode: 'existing_claim', claim_id: CLAIM_ID } },
        status: 'importing',
        total: 46,
        documents: [],
      }),
    ),
  },
};
