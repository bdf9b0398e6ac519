import * as z from 'zod';
import { defineRoute } from '../../http/route';
import { importBatchResponse } from '../schemas';
import { captureImportExamples } from './examples';
import {
  assignmentParams,
  assignmentsResponse,
  connectBody,
  connectionParams,
  connectionsResponse,
  connectResponse,
  cursorQuery,
  importBody,
  mediaResponse,
  teamParams,
  teamsResponse,
  treeResponse,
} from './schemas';

const BROWSE =
  ' Through the connection’s organisation token. 404 for another team’s connection or an id the capture source does not know; 409 when the capture source refuses the stored token (connect again); 502 when it cannot answer; 503 when the integration is not configured.';

export const captureRoutes = {
  connections: defineRoute({
    name: 'listConnections',
    method: 'GET',
    path: '/api/integrations/connections',
    auth: 'actor',
    tag: 'integrations',
    summary:
      'The team’s connections to external systems (at most one capture source connection; its token is never answered), and contents_capture_available: false when this deployment has no capture source configured.',
    handler: 'api/capture/list-connections',
    response: connectionsResponse,
  }),
  connect: defineRoute({
    name: 'connectCaptureSource',
    method: 'POST',
    path: '/api/integrations/capture-source/connect',
    auth: 'actor',
    tag: 'integrations',
    summary:
      'Connects the team to its capture source organisation with a pasted org token: the token is checked with a whoami call (422 on body.api_token when refused; 502 when the capture source cannot answer), then stored as the team’s connection, replacing an earlier one (same id; replaced: true). One team per organisation: 409 when another team is connected to it (its webhook events go to that team). The token is never answered. 503 when the integration is not configured.',
    handler: 'api/capture/connect-capture-source',
    body: connectBody,
    response: connectResponse,
    errors: [409, 502, 503],
  }),
  disconnect: defineRoute({
    name: 'deleteConnection',
    method: 'DELETE',
    path: '/api/integrations/connections/{id}',
    auth: 'actor',
    tag: 'integrations',
    summary: 'Disconnects: the connection and its token are removed. 404 for another team’s connection.',
    handler: 'api/capture/delete-connection',
    params: connectionParams,
    response: z.object({ id: z.string(), deleted: z.literal(true) }),
    errors: [404],
  }),
  teams: defineRoute({
    name: 'listCaptureTeams',
    method: 'GET',
    path: '/api/integrations/connections/{id}/teams',
    auth: 'actor',
    tag: 'integrations',
    summary: `The capture source organisation’s teams, a page at a time.${BROWSE}`,
    handler: 'api/capture/list-capture-teams',
    params: connectionParams,
    query: cursorQuery,
    response: teamsResponse,
    errors: [404, 409, 502, 503],
  }),
  assignments: defineRoute({
    name: 'listCaptureAssignments',
    method: 'GET',
    path: '/api/integrations/connections/{id}/teams/{tid}/assignments',
    auth: 'actor',
    tag: 'integrations',
    summary: `A capture source team’s assignments (site visits), newest first, a page at a time.${BROWSE}`,
    handler: 'api/capture/list-capture-assignments',
    params: teamParams,
    query: cursorQuery,
    response: assignmentsResponse,
    errors: [404, 409, 502, 503],
  }),
  tree: defineRoute({
    name: 'showCaptureTree',
    method: 'GET',
    path: '/api/integrations/connections/{id}/teams/{tid}/assignments/{aid}/tree',
    auth: 'actor',
    tag: 'integrations',
    summary: `Where an assignment’s media was captured: its locations (rooms on import) and their groups.${BROWSE}`,
    handler: 'api/capture/show-capture-tree',
    params: assignmentParams,
    response: treeResponse,
    errors: [404, 409, 502, 503],
  }),
  media: defineRoute({
    name: 'listCaptureMedia',
    method: 'GET',
    path: '/api/integrations/connections/{id}/teams/{tid}/assignments/{aid}/media',
    auth: 'actor',
    tag: 'integrations',
    summary: `An assignment’s media in capture order, a page at a time; thumbnail URLs are the capture source’s own presigned URLs, passed through.${BROWSE}`,
    handler: 'api/capture/list-capture-media',
    params: assignmentParams,
    query: cursorQuery,
    response: mediaResponse,
    errors: [404, 409, 502, 503],
  }),
  import: defineRoute({
    name: 'importFromCaptureSource',
    method: 'POST',
    path: '/api/integrations/connections/{id}/import',
    auth: 'actor',
    tag: 'integrations',
    summary:
      'Imports media of a capture source assignment into a claim: the manifest (assignment_id; target new_claim, existing_claim with claim_id, or room with room_id; select and exclude scopes; filters.types and filters.submitted_only) is saved as an ImportBatch and the import runs in the background (GET /api/integrations/imports/{batch_id} shows it). ' +
      'Synced media only; media already imported on this connection is skipped; locations become rooms (matched by name, else created), groups become photo groups; each room’s photos land in one photo job in awaiting_grouping and each video or voice note in its own job in awaiting_confirmation. Nothing is charged until the adjuster confirms. ' +
      'new_claim numbers the claim after the assignment’s reference. 422 with per-field messages for a bad manifest (or an assignment the capture source does not know); 404 for another team’s connection, claim or room.',
    handler: 'api/capture/import-from-capture-source',
    params: connectionParams,
    body: importBody,
    response: importBatchResponse,
    examples: captureImportExamples,
    successStatus: 201,
    errors: [404, 409, 503],
    idempotent: true,
  }),
  webhook: defineRoute({
    name: 'captureSourceWebhook',
    method: 'POST',
    path: '/api/integrations/capture-source/webhook',
    auth: 'none',
    tag: 'integrations',
    summary:
      'Public; authenticated by signature: X-Capture-Signature is sha256=<hex HMAC-SHA256 of the raw body> under CAPTURE_SOURCE_WEBHOOK_SECRET (no secret configured: 503; a mismatch: 401). ' +
      'The event’s org_id names the connection (none: 202 ignored). Only submission.created acts (data: assignmentId, submissionId, mediaIds): an ImportBatch of exactly the submitted media, into the claim the assignment’s imports land in on that connection, else a new claim; manifest.auto records the event, submission and delivery ids. ' +
      'A redelivered event, or a new event for the same submission, answers the first batch (duplicate). ' +
      'A body that is not JSON answers 400; an event without its id, type or org_id, or a submission.created without its data, 422.',
    handler: 'api/capture/capture-source-webhook',
    response: z.object({
      status: z.enum(['created', 'duplicate', 'ignored']),
      reason: z.string(),
      batch_id: z.string().nullable(),
    }),
    successStatus: 202,
    errors: [400, 401, 422, 503],
  }),
};
