import * as z from 'zod';
import { defineRoute } from '../http/route';
import { idParams } from '../http/schemas';
import {
  appendPhotosBody,
  confirmPhotosBody,
  confirmPhotosResponse,
  photoParams,
  stagedPhotoResponse,
  uploadBatchResponse,
  uploadPhotosBody,
} from './schemas';

export const photoRoutes = {
  upload: defineRoute({
    name: 'uploadPhotos', method: 'POST', path: '/api/upload-photos', auth: 'actor', tag: 'uploads',
    summary:
      'Start a photo upload: a manifest of files in, a new photo job (awaiting_grouping) and one presigned POST per file out. ' +
      'Extensions are checked, PDFs are refused (PDF import is not available), 413 over 100 MB per photo or over MAX_PHOTO_UPLOAD_MB for the batch; nothing is written on an error.',
    handler: 'api/photos/upload-photos',
    body: uploadPhotosBody, response: uploadBatchResponse, successStatus: 201, errors: [400, 404, 413],
  }),
  append: defineRoute({
    name: 'appendPhotos', method: 'POST', path: '/api/upload-photos/{id}/append', auth: 'actor', tag: 'uploads',
    summary:
      'More photos for a photo job in awaiting_grouping or importing_pdf (else 409). Numbered orig_{start_index+i} or after the last number issued. ' +
      'The batch bytes are reserved atomically against MAX_PHOTO_UPLOAD_MB (413, nothing reserved); a PDF is refused with 400.',
    handler: 'api/photos/append-photos',
    params: idParams, body: appendPhotosBody, response: uploadBatchResponse, errors: [400, 404, 409, 413],
  }),
  confirm: defineRoute({
    name: 'confirmPhotos', method: 'POST', path: '/api/upload-photos/{id}/confirm', auth: 'actor', tag: 'uploads',
    summary:
      'The files the browser finished uploading: each header is checked, images become staged photos (each in its own group) and are queued for the upright-JPEG re-encode; ' +
      'missing or non-image files are reported in skipped_photos. Idempotent.',
    handler: 'api/photos/confirm-photos',
    params: idParams, body: confirmPhotosBody, response: confirmPhotosResponse, errors: [404, 409],
  }),
  listStaged: defineRoute({
    name: 'listStagedPhotos', method: 'GET', path: '/api/jobs/{id}/staged-photos', auth: 'user', tag: 'jobs',
    summary: 'Staged photos of a job in index order, with groupings, original_filename, captured_at, PDF-sourced fields and a capability url.',
    handler: 'api/photos/list-staged-photos',
    params: idParams, response: z.array(stagedPhotoResponse), errors: [404],
  }),
  sourcePhotos: defineRoute({
    name: 'jobPhotos', method: 'GET', path: '/api/jobs/{id}/photos', auth: 'user', tag: 'jobs',
    summary: "The job's source photo URLs (deleted photos left out), in index order.",
    handler: 'api/photos/list-source-photos',
    params: idParams, errors: [404],
    response: z.object({ job_id: z.uuid(), photos: z.array(z.object({ filename: z.string(), original_filename: z.string(), url: z.string() })) }),
  }),
  get: defineRoute({
    name: 'getPhoto', method: 'GET', path: '/api/photos/{job_id}/{filename}', auth: 'capability', tag: 'jobs',
    summary: 'Capability URL (the job uuid is the credential): 302 to a short-lived presigned GET of the stored photo, which serves HTTP Range. The filename is traversal-checked; unknown or unsafe names answer 404.',
    handler: 'api/photos/get-photo',
    params: photoParams, successStatus: 302, errors: [404],
  }),
};
