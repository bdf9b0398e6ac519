import * as z from 'zod';
import { defineRoute } from '../http/route';
import { idParams } from '../http/schemas';
import {
  appendPhotosBody,
  clearSegmentsBody,
  confirmPhotosBody,
  confirmPhotosResponse,
  groupDetailsBody,
  photoIdsBody,
  photoParams,
  regroupBody,
  segmentBody,
  stagedPhotoResponse,
  uploadBatchResponse,
  uploadPhotosBody,
} from './schemas';

const stagedPhotoList = z.array(stagedPhotoResponse);

export const photoRoutes = {
  upload: defineRoute({
    name: 'uploadPhotos',
    method: 'POST',
    path: '/api/upload-photos',
    auth: 'actor',
    tag: 'uploads',
    summary:
      'Start a photo upload: a manifest of files in, a new photo job and one presigned POST per photo (uploads) and per PDF contents list (documents) out. ' +
      'With a PDF in the manifest the job starts in importing_pdf (else awaiting_grouping): confirm the PDFs that finished, and their read starts; its photos join the grouping pile, numbered after photo_count_hint (default: the photos listed), and the job moves to awaiting_grouping when it ends. ' +
      'Extensions are checked (400); at most 20 PDFs (400); 413 over 100 MB per photo, over 512 MiB per PDF or over MAX_PHOTO_UPLOAD_MB for the photos (PDFs do not count against it). An empty file gets no slot and is listed in skipped_photos. Nothing is written on an error.',
    handler: 'api/photos/upload-photos',
    body: uploadPhotosBody,
    response: uploadBatchResponse,
    successStatus: 201,
    errors: [400, 404, 413],
    idempotent: true,
  }),
  append: defineRoute({
    name: 'appendPhotos',
    method: 'POST',
    path: '/api/upload-photos/{id}/append',
    auth: 'actor',
    tag: 'uploads',
    summary:
      'More photos for a photo job in awaiting_grouping or importing_pdf (else 409). Numbered orig_{start_index+i} or after the last number issued. ' +
      'The batch bytes are reserved atomically against MAX_PHOTO_UPLOAD_MB (413, nothing reserved). Photos only: a PDF contents list is accepted only when an upload starts, so a manifest listing one is refused with 400 and nothing is written.',
    handler: 'api/photos/append-photos',
    params: idParams,
    body: appendPhotosBody,
    response: uploadBatchResponse,
    errors: [400, 404, 409, 413],
    idempotent: true,
  }),
  confirm: defineRoute({
    name: 'confirmPhotos',
    method: 'POST',
    path: '/api/upload-photos/{id}/confirm',
    auth: 'actor',
    tag: 'uploads',
    summary:
      'The files the browser finished uploading, photos by index and PDF contents lists by document number (at least one of the two, else 400; an unknown document number is 400, nothing written). ' +
      'Each photo header is checked; images become staged photos (each in its own group) and are queued for the upright-JPEG re-encode. Each PDF is checked in the bucket: arrived, it is queued for the read; missing, it is skipped. ' +
      'Missing or non-image files and missing PDFs (index null) are reported in skipped_photos. Once every PDF of the upload is confirmed the read starts (the job stays in importing_pdf while it runs); when none arrived the job moves to awaiting_grouping with preparation_error saying so. ' +
      'Idempotent: states already recorded are kept and a started read is not started again.',
    handler: 'api/photos/confirm-photos',
    params: idParams,
    body: confirmPhotosBody,
    response: confirmPhotosResponse,
    errors: [400, 404, 409],
  }),
  listStaged: defineRoute({
    name: 'listStagedPhotos',
    method: 'GET',
    path: '/api/jobs/{id}/staged-photos',
    auth: 'user',
    tag: 'jobs',
    summary:
      'Staged photos of a job in index order, with groupings, original_filename, captured_at, PDF-sourced fields and a capability url.',
    handler: 'api/photos/list-staged-photos',
    params: idParams,
    response: z.array(stagedPhotoResponse),
    errors: [404],
  }),
  sourcePhotos: defineRoute({
    name: 'jobPhotos',
    method: 'GET',
    path: '/api/jobs/{id}/photos',
    auth: 'user',
    tag: 'jobs',
    summary: "The job's source photo URLs (deleted photos left out), in index order.",
    handler: 'api/photos/list-source-photos',
    params: idParams,
    errors: [404],
    response: z.object({
      job_id: z.uuid(),
      photos: z.array(z.object({ filename: z.string(), original_filename: z.string(), url: z.string() })),
    }),
  }),
  get: defineRoute({
    name: 'getPhoto',
    method: 'GET',
    path: '/api/photos/{job_id}/{filename}',
    auth: 'capability',
    tag: 'jobs',
    summary:
      'Capability URL (the job uuid is the credential): 302 to a short-lived presigned GET of the stored photo, which serves HTTP Range. The filename is traversal-checked; unknown or unsafe names answer 404.',
    handler: 'api/photos/get-photo',
    params: photoParams,
    successStatus: 302,
    errors: [404],
  }),
  regroup: defineRoute({
    name: 'regroupStagedPhotos',
    method: 'PUT',
    path: '/api/jobs/{id}/staged-photos/regroup',
    auth: 'actor',
    tag: 'jobs',
    summary:
      'Replaces all group assignments: each listed group of staged-photo ids becomes one group (group_index = its smallest photo index); every other whole photo goes back to its own group. ' +
      'Manual segments are left alone and cannot be listed. 400 (nothing written) for an empty group, an id listed twice or unknown, or a group over MAX_PHOTOS_PER_ITEM; ' +
      "409 unless the job is awaiting_grouping or error. Answers the job's staged photos.",
    handler: 'api/photos/regroup-staged-photos',
    params: idParams,
    body: regroupBody,
    response: stagedPhotoList,
    errors: [400, 404, 409],
  }),
  delete: defineRoute({
    name: 'deleteStagedPhotos',
    method: 'PUT',
    path: '/api/jobs/{id}/staged-photos/delete',
    auth: 'actor',
    tag: 'jobs',
    summary:
      'Soft-deletes staged photos by id (a deleted photo reaches no AI call). 400 naming unknown ids, nothing written; 409 unless the job is awaiting_grouping or error.',
    handler: 'api/photos/delete-staged-photos',
    params: idParams,
    body: photoIdsBody,
    response: stagedPhotoList,
    errors: [400, 404, 409],
  }),
  restore: defineRoute({
    name: 'restoreStagedPhotos',
    method: 'PUT',
    path: '/api/jobs/{id}/staged-photos/restore',
    auth: 'actor',
    tag: 'jobs',
    summary:
      'Restores soft-deleted staged photos by id. 400 naming unknown ids or a photo that could not be read (never restorable), nothing written; 409 unless the job is awaiting_grouping or error.',
    handler: 'api/photos/restore-staged-photos',
    params: idParams,
    body: photoIdsBody,
    response: stagedPhotoList,
    errors: [400, 404, 409],
  }),
  segment: defineRoute({
    name: 'segmentStagedPhoto',
    method: 'PUT',
    path: '/api/jobs/{id}/staged-photos/segment',
    auth: 'actor',
    tag: 'jobs',
    summary:
      "Marks items on one photo: each item's boxes (fractions of the upright photo, 1..MAX_PHOTOS_PER_ITEM per item) become segment photos in one group, a known item named by the user or, when the name is blank, by the AI. " +
      "Replaces the photo's earlier segments and hides the photo; the crops are made in the background. 400 (nothing written) for an unknown, deleted or segment photo_id or a bad box.",
    handler: 'api/photos/segment-staged-photo',
    params: idParams,
    body: segmentBody,
    response: stagedPhotoList,
    errors: [400, 404, 409],
  }),
  clearSegments: defineRoute({
    name: 'clearStagedPhotoSegments',
    method: 'PUT',
    path: '/api/jobs/{id}/staged-photos/clear-segments',
    auth: 'actor',
    tag: 'jobs',
    summary:
      "Removes a photo's segments and their crops and shows the whole photo again in its group. 400 when the photo has no segments or is itself a segment.",
    handler: 'api/photos/clear-staged-photo-segments',
    params: idParams,
    body: clearSegmentsBody,
    response: stagedPhotoList,
    errors: [400, 404, 409],
  }),
  details: defineRoute({
    name: 'setStagedGroupDetails',
    method: 'PUT',
    path: '/api/jobs/{id}/staged-photos/details',
    auth: 'actor',
    tag: 'jobs',
    summary:
      'Name and quantity of one whole group (ids: all its photos). A non-empty name marks the item user-described: it is built without an AI call; an empty or null name hands it back to the AI. ' +
      '400 when the ids span groups or leave some of the group out.',
    handler: 'api/photos/set-staged-group-details',
    params: idParams,
    body: groupDetailsBody,
    response: stagedPhotoList,
    errors: [400, 404, 409],
  }),
};
