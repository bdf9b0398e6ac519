/** A staged photo as the API shows it (spec: Jobs > GET /api/jobs/{id}/staged-photos). */
import type { StagedPhoto } from './staged-photo-record-rules';

/** The capability path that serves a job's photo (no token: the job uuid is the credential). */
export const photoUrl = (jobId: string, filename: string) => `/api/photos/${jobId}/${encodeURIComponent(filename)}`;

export function stagedPhotoView(photo: StagedPhoto) {
  return {
    id: photo.id,
    job_id: photo.job_id,
    index: photo.index,
    filename: photo.filename,
    original_filename: photo.original_filename,
    captured_at: photo.captured_at,
    group_index: photo.group_index,
    is_segment: photo.is_segment,
    segment_of: photo.segment_of,
    crop: photo.crop,
    hidden_by_segments: photo.hidden_by_segments,
    manual_name: photo.manual_name,
    quantity: photo.quantity,
    deleted: photo.deleted,
    normalized: photo.normalized,
    width: photo.width,
    height: photo.height,
    source_description: photo.source_description,
    source_item_key: photo.source_item_key,
    source_label: photo.source_label,
    source_room: photo.source_room,
    url: photoUrl(photo.job_id, photo.filename),
  };
}
