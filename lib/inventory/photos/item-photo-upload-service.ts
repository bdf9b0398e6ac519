/**
 * Uploading a photo onto an item (spec: Inventory photo routes, attach and
 * replace): two calls on the same route, and the bytes never pass through
 * the service's functions.
 *
 *   {filename, size}  → a photo number of the item's job, and a presigned POST
 *                       straight to the bucket, limited to the declared size
 *                       and to one key, whose signed metadata names the item,
 *                       the route and the number.
 *   {upload_key}      → the object is checked (it exists, its signed
 *                       metadata names this item, route and number, and its
 *                       header is an image's) and attached
 *                       (item-photo-service.ts) together with its StagedPhoto
 *                       row, which is what GET /api/photos/{job_id}/{filename}
 *                       serves. The photos worker then re-encodes it to an
 *                       upright JPEG under the job's photos, as it does for
 *                       every uploaded photo. The row is marked deleted so
 *                       that it never counts as one of the job's source photos.
 *
 * A repeated confirm attaches once: the StagedPhoto row of the number has an
 * id derived from the upload, item and route, written only if the number is
 * free, in the same transaction as the attach.
 *
 * No image decoding here: the HTTP function stays small and fast.
 */
import { randomUUID } from 'node:crypto';
import type { Identity } from '../../auth/identity-rules';
import { presignedUploadForm } from '../../blob/presigned-post';
import { blobKeys } from '../../blob/keys';
import { deleteObject, headObject, readObjectHead } from '../../blob/objects';
import { settings } from '../../config';
import { ConflictError, InvalidRequestError, TooLargeError, UnprocessableError } from '../../errors';
import { JOB_STATUSES } from '../../jobs/job-rules';
import { SNIFF_HEAD_BYTES, sniffImage } from '../../media/sniff';
import { takePhotoIndices } from '../../photos/photo-job-store';
import { encodeMetaFilename, decodeMetaFilename, MAX_PHOTO_INDEX } from '../../photos/rules';
import { getStagedPhoto, newStagedPhoto } from '../../photos/staged-photo-store';
import type { NormalizeMessage } from '../../photos/queue-schemas';
import { photoUploadContentType, SINGLE_PHOTO_MAX_BYTES, sniffedTypeProblem } from '../../photos/upload-rules';
import { dispatch } from '../../queue/dispatch';
import { loadItemForEdit } from '../access-service';
import {
  isIssuedUpload,
  itemPhotoFilename,
  itemUploadProblem,
  type ItemUploadPurpose,
  parseUploadKey,
  UPLOAD_NOT_FOUND,
  uploadKeyOf,
} from './item-photo-rules';
import type { ItemPhotoUploadInput } from './item-photo-schemas';
import { addUploadedItemPhoto, showItemWithPhotos } from './item-photo-service';
import { derivedId } from '../item-rules';
import type { InventoryItem } from '../item-record-rules';

type UploadRequest = Extract<ItemPhotoUploadInput, { filename: string }>;
type UploadConfirmation = Extract<ItemPhotoUploadInput, { upload_key: string }>;

const jobPrefixOf = (item: InventoryItem) => blobKeys.jobPrefix(item.team_id, item.claim_id, item.job_id);
const incomingKeyOf = (item: InventoryItem, uploadId: string) => `${jobPrefixOf(item)}incoming/item-${uploadId}`;

/** First call: a photo number of the item's job and a presigned POST for the file. */
async function issueItemPhotoUpload(
  identity: Identity,
  itemId: string,
  body: UploadRequest,
  purpose: ItemUploadPurpose,
) {
  const { item } = await loadItemForEdit(identity, itemId);
  const problem = itemUploadProblem(body);
  if (problem?.status === 413) throw new TooLargeError(problem.detail);
  if (problem) throw new UnprocessableError(problem.detail, [{ field: 'body.filename', message: problem.detail }]);
  const job = await takePhotoIndices(item.job_id, 1, JOB_STATUSES, MAX_PHOTO_INDEX);
  if (!job) throw new ConflictError("The item's job has no photo numbers left.");
  const index = job.photo_next_index - 1;
  const uploadId = randomUUID();
  const expiresIn = settings().PRESIGNED_URL_TTL_SECONDS;
  const upload = await presignedUploadForm(
    incomingKeyOf(item, uploadId),
    {
      maxBytes: body.size,
      // Fields become eq conditions of the signed policy: confirm trusts them.
      fields: {
        'Content-Type': photoUploadContentType(body.content_type),
        'x-amz-meta-original-filename': encodeMetaFilename(body.filename),
        'x-amz-meta-item-id': item.id,
        'x-amz-meta-upload-purpose': purpose,
        'x-amz-meta-photo-index': String(index),
      },
    },
    expiresIn,
  );
  return {
    upload_key: uploadKeyOf(uploadId, index),
    upload,
    max_bytes: body.size,
    expires_in: expiresIn,
  };
}

/** Second call: the landed upload becomes a photo of the item (once, however often it is confirmed). */
async function confirmItemPhotoUpload(
  identity: Identity,
  itemId: string,
  body: UploadConfirmation,
  purpose: ItemUploadPurpose,
) {
  const { item } = await loadItemForEdit(identity, itemId);
  const parsed = parseUploadKey(body.upload_key);
  if (!parsed) throw new InvalidRequestError(UPLOAD_NOT_FOUND);
  const { uploadId, index } = parsed;
  const stagedId = derivedId('item-photo-upload', uploadId, item.id, purpose);
  const recorded = async () => {
    const row = await getStagedPhoto(item.job_id, index);
    return row?.id === stagedId ? row : null;
  };
  const queueReencode = () => dispatch('photos', { job_id: item.job_id, index } satisfies NormalizeMessage);
  const earlier = await recorded();
  if (earlier) {
    // A repeat whose first try may have failed to queue the re-encode: queue it again (the worker is idempotent).
    if (!earlier.normalized && !earlier.unreadable_reason) await queueReencode();
    return showItemWithPhotos(item.id);
  }

  const incomingKey = incomingKeyOf(item, uploadId);
  const head = await headObject(incomingKey);
  if (!head || !isIssuedUpload(head.metadata, { item_id: item.id, purpose, index }))
    throw new InvalidRequestError(UPLOAD_NOT_FOUND);
  if (head.size > SINGLE_PHOTO_MAX_BYTES) {
    await deleteObject(incomingKey);
    throw new TooLargeError('The upload is larger than the limit for a single photo.');
  }
  // The header decides, never the browser's claim; decoding waits for the photos worker.
  const header = await readObjectHead(incomingKey, SNIFF_HEAD_BYTES);
  if (!header) throw new InvalidRequestError(UPLOAD_NOT_FOUND);
  const notPhoto = sniffedTypeProblem(sniffImage(header));
  if (notPhoto) {
    await deleteObject(incomingKey);
    const detail = `${notPhoto} Nothing was attached.`;
    throw new UnprocessableError(detail, [{ field: 'body.upload_key', message: detail }]);
  }

  const filename = itemPhotoFilename(index);
  const key = `${jobPrefixOf(item)}photos/${filename}`;
  const staged = {
    ...newStagedPhoto({
      jobId: item.job_id,
      index,
      filename,
      key,
      incomingKey,
      originalFilename: decodeMetaFilename(head.metadata['original-filename']) ?? filename,
      capturedAt: null,
      sizeBytes: head.size,
    }),
    id: stagedId,
    // Added to an item after processing: not one of the job's source photos.
    deleted: true,
  };
  const photo = {
    id: derivedId('item-photo', uploadId, item.id, purpose),
    item_id: item.id,
    filename,
    job_id: item.job_id,
    key,
    is_primary: false,
    ordering: 0,
  };
  const view = await addUploadedItemPhoto(identity, item.id, {
    photo,
    staged,
    purpose,
    isRecorded: async () => Boolean(await recorded()),
  });
  // Served from the upload until the worker has written the upright JPEG (GET /api/photos/{job_id}/{filename}).
  await queueReencode();
  return view;
}

/** POST /api/inventory/item/{item_id}/photos: attach an uploaded photo at the end (primary only if the item had none). */
export function addItemPhoto(identity: Identity, itemId: string, body: ItemPhotoUploadInput) {
  return 'upload_key' in body
    ? confirmItemPhotoUpload(identity, itemId, body, 'attach')
    : issueItemPhotoUpload(identity, itemId, body, 'attach');
}

/** PUT /api/inventory/item/{item_id}/photo: replace the primary photo with an uploaded one. */
export function updatePrimaryItemPhoto(identity: Identity, itemId: string, body: ItemPhotoUploadInput) {
  return 'upload_key' in body
    ? confirmItemPhotoUpload(identity, itemId, body, 'replace')
    : issueItemPhotoUpload(identity, itemId, body, 'replace');
}
