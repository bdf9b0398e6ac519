/** Request and response shapes of the item photo routes (spec: Inventory photo routes; ItemPhoto). */
import * as z from 'zod';
import { uuid } from '../../http/schemas';
import { UPLOAD_KEY_PATTERN } from './item-photo-rules';
import { itemResponse } from '../schemas';

export const itemPhotoParams = z.object({ item_id: uuid(), photo_id: uuid() });
export const itemParams = z.object({ item_id: uuid() });

/** First call: what the browser is about to upload. */
const uploadRequest = z.strictObject({
  filename: z.string().trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
  /** Bytes, exactly as the browser's File.size: the presigned POST accepts at most this many. */
  size: z.number().int('must be a whole number of bytes').min(1, 'the file is empty').max(Number.MAX_SAFE_INTEGER),
  content_type: z.string().max(200).optional(),
});

/** Second call: the upload has landed in the bucket. */
const uploadConfirmation = z.strictObject({
  upload_key: z
    .string()
    .regex(UPLOAD_KEY_PATTERN, 'must be an upload_key this route answered')
    .describe('The upload_key the first call answered.'),
});

export const itemPhotoUploadBody = z.union([uploadRequest, uploadConfirmation]);
export type ItemPhotoUploadInput = z.output<typeof itemPhotoUploadBody>;

const issuedUpload = z.object({
  upload_key: z.string().describe('Send it back in a second call to this route once the file is uploaded.'),
  upload: z.object({
    url: z.string().describe('POST the form here: every entry of fields first, then the file as the field "file".'),
    fields: z.record(z.string(), z.string()),
  }),
  max_bytes: z.number().int().describe('The bucket refuses a file larger than this (the declared size).'),
  expires_in: z.number().int().describe('Seconds the upload form stays valid.'),
});

export const itemPhotoUploadResponse = z.union([issuedUpload, itemResponse]);

export const itemPhotoUpdateBody = z
  .strictObject({
    is_primary: z.literal(true, { message: 'can only be true (make this photo the primary one)' }).optional(),
    ordering: z.number().int('must be a whole number').min(0).optional(),
  })
  .refine((b) => b.is_primary !== undefined || b.ordering !== undefined, {
    message: 'give is_primary, ordering or both',
  });
export type ItemPhotoUpdate = z.output<typeof itemPhotoUpdateBody>;

export const itemPhotoMoveBody = z.strictObject({ target_item_id: uuid() });

export const itemPhotoMoveResponse = z.object({
  item: itemResponse.describe('The item the photo left.'),
  target_item: itemResponse.describe('The item the photo moved to.'),
});
