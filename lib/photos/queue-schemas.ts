/** The messages of the photos queue: the re-encode of an uploaded photo and the crop of a drawn segment. */
import * as z from 'zod';

/** Re-encode photo `index` of the job to an upright JPEG (lib/photos/normalize-service.ts). */
const normalizeMessage = z.object({ job_id: z.uuid(), index: z.number().int().min(0) });
export type NormalizeMessage = z.output<typeof normalizeMessage>;

/** Cut segment `index` of the job from its original (lib/photos/segment-service.ts). */
const segmentCropMessage = z.object({
  kind: z.literal('segment'),
  job_id: z.uuid(),
  index: z.number().int().min(0),
});
export type SegmentCropMessage = z.output<typeof segmentCropMessage>;

/** What the photos queue carries: a crop, or the re-encode of an upload ({job_id, index}, as before). */
export const photosQueueMessage = z.union([segmentCropMessage, normalizeMessage]);
export type PhotosQueueMessage = z.output<typeof photosQueueMessage>;
