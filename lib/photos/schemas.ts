/** Request and response shapes of the photo upload routes (spec: Uploads; Jobs > staged-photos). */
import * as z from 'zod';
import { uuid } from '../http/schemas';
import { jobResponse } from '../jobs/view';
import { MAX_MANUAL_NAME_LENGTH, MAX_SEGMENT_ITEMS } from './grouping-rules';
import { MAX_PHOTO_INDEX } from './rules';
import { MAX_FILES_PER_BATCH, MAX_PDFS_PER_UPLOAD } from './upload-rules';

export const manifestFile = z.strictObject({
  filename: z.string().trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
  /** Bytes, exactly as the browser's File.size: the presigned POST accepts at most this many. */
  size: z.number().int('must be a whole number of bytes').min(0).max(Number.MAX_SAFE_INTEGER),
  content_type: z.string().max(200).optional(),
});

const batchFields = {
  files: z
    .array(manifestFile)
    .min(1, 'must list at least one file')
    .max(MAX_FILES_PER_BATCH, `at most ${MAX_FILES_PER_BATCH} files per request`),
  /** Total loose photos in the browser's selection; stored on a new job (the contents lists' groups are numbered after them). */
  photo_count_hint: z.number().int().min(0).max(MAX_PHOTO_INDEX).optional(),
  /** The files are numbered orig_{start_index+i}; without it the job's counter hands out the next numbers. */
  start_index: z.number().int().min(0).max(MAX_PHOTO_INDEX).optional(),
  /** Capture dates aligned to files (ISO or EXIF text, or epoch ms such as File.lastModified); EXIF wins when present. */
  captured_ats: z.array(z.union([z.string().max(64), z.number(), z.null()])).optional(),
};

type Batch = { files: unknown[]; start_index?: number; captured_ats?: unknown[] };
const batchRules = <T extends Batch>(schema: z.ZodType<T>) =>
  schema
    .refine((b) => b.captured_ats === undefined || b.captured_ats.length === b.files.length, {
      message: 'must have one entry per file',
      path: ['captured_ats'],
    })
    .refine((b) => b.start_index === undefined || b.start_index + b.files.length - 1 <= MAX_PHOTO_INDEX, {
      message: `numbers must stay at or below ${MAX_PHOTO_INDEX}`,
      path: ['start_index'],
    });

export const uploadPhotosBody = batchRules(z.strictObject({ room_id: uuid(), ...batchFields }));
export const appendPhotosBody = batchRules(z.strictObject(batchFields));
export type UploadPhotosInput = z.output<typeof uploadPhotosBody>;
export type AppendPhotosInput = z.output<typeof appendPhotosBody>;

export const confirmPhotosBody = z.strictObject({
  indices: z
    .array(z.number().int().min(0).max(MAX_PHOTO_INDEX))
    .max(MAX_FILES_PER_BATCH)
    .optional()
    .describe('The photos (their index in uploads) whose POST finished.'),
  documents: z
    .array(z.number().int().min(0).max(MAX_PHOTO_INDEX))
    .max(MAX_PDFS_PER_UPLOAD)
    .optional()
    .describe(
      'The contents lists (their document number in documents) whose POST finished, or failed: name every one of the upload; its read starts once all are confirmed.',
    ),
});
export type ConfirmPhotosInput = z.output<typeof confirmPhotosBody>;

const skippedPhoto = z.object({
  filename: z.string().describe('The original filename (or the synthetic one when the upload never arrived).'),
  reason: z.string(),
  index: z
    .number()
    .int()
    .nullable()
    .describe('The orig number the file had, null when none was given and for a PDF contents list.'),
});
export type SkippedPhoto = z.output<typeof skippedPhoto>;

const uploadSlot = z.object({
  index: z.number().int(),
  filename: z.string().describe('The synthetic stored name, orig_####.jpg.'),
  original_filename: z.string(),
  url: z.string().describe('POST the form here: every entry of fields first, then the file as the field "file".'),
  fields: z.record(z.string(), z.string()),
  max_bytes: z.number().int().describe('The bucket refuses a file larger than this (the declared size).'),
});
export type UploadSlot = z.output<typeof uploadSlot>;

export const documentSlot = z.object({
  document: z
    .number()
    .int()
    .describe('The contents list number in this upload, from 0 in manifest order; confirm names it.'),
  original_filename: z.string().describe('The PDF file name as listed in the manifest.'),
  url: z.string().describe('POST the form here: every entry of fields first, then the PDF as the field "file".'),
  fields: z
    .record(z.string(), z.string())
    .describe('Signed form fields, Content-Type application/pdf among them; send them unchanged.'),
  max_bytes: z.number().int().describe('The bucket refuses a file larger than this (the declared size).'),
});
export type DocumentSlot = z.output<typeof documentSlot>;

export const uploadBatchResponse = z.object({
  job: jobResponse,
  uploads: z.array(uploadSlot),
  documents: z
    .array(documentSlot)
    .describe(
      'Start only: one presigned POST per PDF contents list of the manifest (an empty PDF gets none; it is in skipped_photos). Always empty on append.',
    ),
  skipped_photos: z.array(skippedPhoto),
});

export const stagedPhotoResponse = z.object({
  id: z.uuid(),
  job_id: z.uuid(),
  index: z.number().int(),
  filename: z.string(),
  original_filename: z.string(),
  captured_at: z.string().nullable(),
  group_index: z.number().int(),
  is_segment: z.boolean(),
  segment_of: z.number().int().nullable().describe('Segments: the index of the photo they were cut from.'),
  crop: z
    .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
    .nullable()
    .describe('Segments: the box they were cut from, as fractions of the upright photo.'),
  hidden_by_segments: z.boolean().describe('The photo has segments, so it no longer forms its own group.'),
  manual_name: z.string().nullable(),
  quantity: z.number().nullable(),
  deleted: z.boolean(),
  normalized: z.boolean(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  source_description: z.string().nullable(),
  source_item_key: z.string().nullable(),
  source_label: z
    .string()
    .nullable()
    .describe(
      "PDF-sourced: the item's label as the contents list prints it (for example 'Item 0018'), the same on every photo of that item; null for other photos and for a photo the list prints no label for.",
    ),
  source_room: z.string().nullable(),
  url: z.string().describe('Capability URL of the photo: /api/photos/{job_id}/{filename}.'),
});

export const confirmPhotosResponse = z.object({
  job: jobResponse,
  staged_photos: z.array(stagedPhotoResponse),
  skipped_photos: z.array(skippedPhoto),
});

export const photoParams = z.object({ job_id: uuid(), filename: z.string() });

// Grouping (lib/photos/grouping-rules.ts has the rules; ids are checked against the job's photos there, for a 400 that names them).
const photoId = z.string().max(100);

export const regroupBody = z.strictObject({
  groups: z
    .array(z.array(photoId).max(1000))
    .max(10_000)
    .describe(
      'Staged photo ids; each list becomes one group. Non-segment photos not listed go back to their own group.',
    ),
});

export const photoIdsBody = z.strictObject({
  ids: z.array(photoId).min(1, 'must list at least one photo').max(1000, 'at most 1000 photos per request'),
});

const manualNameField = z.string().max(MAX_MANUAL_NAME_LENGTH, `must be at most ${MAX_MANUAL_NAME_LENGTH} characters`);

const segmentBox = z.strictObject({
  x: z.number().describe('Left edge, a fraction (0..1) of the upright photo width.'),
  y: z.number().describe('Top edge, a fraction of the upright photo height.'),
  width: z.number(),
  height: z.number(),
});

export const segmentBody = z.strictObject({
  photo_id: photoId,
  items: z
    .array(
      z.strictObject({
        name: manualNameField.describe('Blank: the AI names the item.'),
        quantity: z.number().int().min(1).optional().describe('Overrides the model count; default 1.'),
        boxes: z.array(segmentBox).max(1000).describe('1..MAX_PHOTOS_PER_ITEM boxes; one item, one group.'),
      }),
    )
    .min(1, 'must draw at least one item')
    .max(MAX_SEGMENT_ITEMS, `at most ${MAX_SEGMENT_ITEMS} items per photo`),
});
export type SegmentInput = z.output<typeof segmentBody>;

export const clearSegmentsBody = z.strictObject({ photo_id: photoId });

export const groupDetailsBody = z.strictObject({
  ids: z.array(photoId).min(1, 'must list the photos of one group').max(1000),
  name: manualNameField
    .nullable()
    .describe('A non-empty name marks the item user-described (no AI call); empty or null hands it back to the AI.'),
  quantity: z.number().int().min(1).nullable(),
});
export type GroupDetailsInput = z.output<typeof groupDetailsBody>;
