import * as z from 'zod';
import { defineRoute } from '../http/route';
import {
  partUrlsExamples,
  uploadAudioExamples,
  uploadCompleteExamples,
  uploadInitExamples,
  uploadVideoExamples,
} from './examples';
import type { UploadKind } from './rules';
import {
  partUrlsBody,
  partUrlsResponse,
  uploadAbortResponse,
  uploadCompleteResponse,
  uploadInitBody,
  uploadInitResponse,
  uploadParams,
  uploadStatusResponse,
} from './schemas';

/**
 * The init body for a route that fixes the kind: `kind` may be left out, or
 * sent when it names the route's kind (a client can reuse its init body);
 * another kind is a 422 rather than being silently overridden.
 */
const fixedKindInitBody = <K extends UploadKind>(kind: K) =>
  uploadInitBody.extend({
    kind: z.literal(kind, { error: `must be "${kind}" on this route, or left out` }).optional(),
  });

/**
 * What a client gets from the one-request upload routes: API Gateway caps a
 * request at 10 MB, so a video or voice note never travels in the request.
 */
const directToBucket = (kind: UploadKind) =>
  `Start a ${kind} upload: the ${kind} counterpart of POST /api/uploads/init, with the same body minus \`kind\` ` +
  `(optional; when sent it must be "${kind}") and the same answer. The file does not travel in this request ` +
  '(requests through the API are capped at 10 MB and uploads go up to MAX_UPLOAD_SIZE_MB): the answer opens a ' +
  'resumable multipart upload straight to the bucket. Next, ask POST /api/uploads/{id}/part-urls for presigned ' +
  'URLs, PUT each chunk_size slice of the file to its URL (a failed part is simply sent again; ' +
  'GET /api/uploads/{id} lists what arrived), then POST /api/uploads/{id}/complete to create the job. ' +
  '400 for an extension the kind does not accept, 404 for a room not in your team, 413 over MAX_UPLOAD_SIZE_MB.';

export const uploadRoutes = {
  init: defineRoute({
    name: 'initUpload',
    method: 'POST',
    path: '/api/uploads/init',
    auth: 'actor',
    tag: 'uploads',
    summary:
      'Start a chunked video or audio upload: validates room, extension and size (413 over MAX_UPLOAD_SIZE_MB) and opens an S3 multipart upload.',
    handler: 'api/uploads/init-upload',
    body: uploadInitBody,
    response: uploadInitResponse,
    examples: uploadInitExamples,
    successStatus: 201,
    errors: [400, 404, 413],
    idempotent: true,
  }),
  video: defineRoute({
    name: 'uploadVideo',
    method: 'POST',
    path: '/api/upload',
    auth: 'actor',
    tag: 'uploads',
    summary: directToBucket('video'),
    handler: 'api/uploads/upload-video',
    body: fixedKindInitBody('video'),
    response: uploadInitResponse,
    examples: uploadVideoExamples,
    successStatus: 201,
    errors: [400, 404, 413],
    idempotent: true,
  }),
  audio: defineRoute({
    name: 'uploadAudio',
    method: 'POST',
    path: '/api/upload-audio',
    auth: 'actor',
    tag: 'uploads',
    summary: directToBucket('audio'),
    handler: 'api/uploads/upload-audio',
    body: fixedKindInitBody('audio'),
    response: uploadInitResponse,
    examples: uploadAudioExamples,
    successStatus: 201,
    errors: [400, 404, 413],
    idempotent: true,
  }),
  partUrls: defineRoute({
    name: 'uploadPartUrls',
    method: 'POST',
    path: '/api/uploads/{id}/part-urls',
    auth: 'actor',
    tag: 'uploads',
    summary:
      'Presigned PUT URLs for parts (0-based indices, at most 100 per call), each signed for its exact size; re-sending a part replaces it.',
    handler: 'api/uploads/part-urls',
    params: uploadParams,
    body: partUrlsBody,
    response: partUrlsResponse,
    examples: partUrlsExamples,
    errors: [404, 409],
  }),
  status: defineRoute({
    name: 'getUpload',
    method: 'GET',
    path: '/api/uploads/{id}',
    auth: 'actor',
    tag: 'uploads',
    summary: 'The received part indices (from S3) and the upload status.',
    handler: 'api/uploads/get-upload',
    params: uploadParams,
    response: uploadStatusResponse,
    errors: [404],
  }),
  complete: defineRoute({
    name: 'completeUpload',
    method: 'POST',
    path: '/api/uploads/{id}/complete',
    auth: 'actor',
    tag: 'uploads',
    summary:
      'Assemble the parts and create the job; 400 unless the parts are a gap-free 0..n-1 run adding up to total_size. Repeating it returns the same job.',
    handler: 'api/uploads/complete-upload',
    params: uploadParams,
    response: uploadCompleteResponse,
    examples: uploadCompleteExamples,
    successStatus: 201,
    errors: [400, 404, 409],
  }),
  abort: defineRoute({
    name: 'abortUpload',
    method: 'DELETE',
    path: '/api/uploads/{id}',
    auth: 'actor',
    tag: 'uploads',
    summary: 'Abort the upload and discard its parts; idempotent; 409 once completed.',
    handler: 'api/uploads/abort-upload',
    params: uploadParams,
    response: uploadAbortResponse,
    errors: [404, 409],
  }),
};
