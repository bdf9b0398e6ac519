import { defineRoute } from '../http/route';
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

export const uploadRoutes = {
  init: defineRoute({
    name: 'initUpload', method: 'POST', path: '/api/uploads/init', auth: 'actor', tag: 'uploads',
    summary: 'Start a chunked video or audio upload: validates room, extension and size (413 over MAX_UPLOAD_SIZE_MB) and opens an S3 multipart upload.',
    handler: 'api/uploads/init-upload', body: uploadInitBody, response: uploadInitResponse, successStatus: 201, errors: [400, 404, 413], idempotent: true,
  }),
  partUrls: defineRoute({
    name: 'uploadPartUrls', method: 'POST', path: '/api/uploads/{id}/part-urls', auth: 'actor', tag: 'uploads',
    summary: 'Presigned PUT URLs for parts (0-based indices, at most 100 per call), each signed for its exact size; re-sending a part replaces it.',
    handler: 'api/uploads/part-urls', params: uploadParams, body: partUrlsBody, response: partUrlsResponse, errors: [404, 409],
  }),
  status: defineRoute({
    name: 'getUpload', method: 'GET', path: '/api/uploads/{id}', auth: 'actor', tag: 'uploads',
    summary: 'The received part indices (from S3) and the upload status.',
    handler: 'api/uploads/get-upload', params: uploadParams, response: uploadStatusResponse, errors: [404],
  }),
  complete: defineRoute({
    name: 'completeUpload', method: 'POST', path: '/api/uploads/{id}/complete', auth: 'actor', tag: 'uploads',
    summary: 'Assemble the parts and create the job; 400 unless the parts are a gap-free 0..n-1 run adding up to total_size. Repeating it returns the same job.',
    handler: 'api/uploads/complete-upload', params: uploadParams, response: uploadCompleteResponse, successStatus: 201, errors: [400, 404, 409],
  }),
  abort: defineRoute({
    name: 'abortUpload', method: 'DELETE', path: '/api/uploads/{id}', auth: 'actor', tag: 'uploads',
    summary: 'Abort the upload and discard its parts; idempotent; 409 once completed.',
    handler: 'api/uploads/abort-upload', params: uploadParams, response: uploadAbortResponse, errors: [404, 409],
  }),
};
