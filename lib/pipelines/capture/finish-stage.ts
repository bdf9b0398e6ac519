/**
 * The last stage of a capture import: what arrived is handed to the
 * adjuster and the run is recorded on the batch (spec: Capture source
 * integration; States > ImportBatch). Each room's photos become one photo
 * job in awaiting_grouping (their rows written before the job, so a
 * half-filled job is never seen), each video or voice note a job in
 * awaiting_confirmation queued for its probe; the batch gets its counters,
 * its jobs, the media that failed (what a retry reads) and its status:
 * complete, partial or failed. Ids are derived, so the stage can run again.
 */
import { getImportBatch, updateImportBatch } from '../../imports/store';
import type { BatchJob } from '../../imports/batch-record-rules';
import { runStatus, settledGroups } from '../../imports/capture/import-rules';
import { derivedId } from '../../inventory/item-rules';
import { getJob, putJobOnce } from '../../jobs/job-store';
import { newJobRecord } from '../../jobs/job-record-rules';
import { normalizeCapturedAt } from '../../media/sniff';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { newStagedPhoto, putStagedPhotoRows } from '../../photos/staged-photo-store';
import { dispatch } from '../../queue/dispatch';
import { getRoom } from '../../rooms/store';
import { plural } from '../../text';
import { type DownloadResult, getImportPlan, listDownloadResults, type PlannedMedia } from './run-store';

export async function handOverImport(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const runId = job.run_id as string;
  const batch = await getImportBatch(job.reads_batch_id as string);
  if (!batch || batch.read_job_id !== job.id || batch.status !== 'importing') return { kind: 'next' };
  const plan = await getImportPlan(job, runId);
  const results = new Map((await listDownloadResults(job.id, runId)).map((r) => [r.media_id, r]));
  const arrived = plan.media.filter((m) => results.get(m.media_id)?.ok);
  const jobs: BatchJob[] = [];
  const created = new Set(plan.rooms.filter((r) => r.created).map((r) => r.room_id));

  const photoJobs = new Map<string, PlannedMedia[]>();
  for (const m of arrived) if (m.type === 'photo') photoJobs.set(m.job_id, [...(photoJobs.get(m.job_id) ?? []), m]);
  for (const [jobId, photos] of photoJobs) {
    const room = await getRoom(photos[0].room_id, true);
    if (!room) continue;
    if (!(await getJob(jobId, true))) {
      const groups = settledGroups(
        photos.map((p) => ({ index: p.index as number, group_index: p.group_index as number })),
      );
      const rows = photos.map((p) => {
        const result = results.get(p.media_id) as DownloadResult;
        const filename = p.key.slice(p.key.lastIndexOf('/') + 1);
        return {
          ...newStagedPhoto({
            jobId,
            index: p.index as number,
            filename,
            key: p.key,
            incomingKey: p.key,
            originalFilename: p.filename,
            capturedAt: normalizeCapturedAt(p.captured_at),
            sizeBytes: result.size_bytes ?? 0,
          }),
          id: derivedId('capture-photo', jobId, p.media_id),
          group_index: groups.get(p.index as number) as number,
          normalized: true,
          width: result.width,
          height: result.height,
        };
      });
      await putStagedPhotoRows(rows);
      const photoJob = newJobRecord({
        id: jobId,
        room,
        userId: batch.created_by_user_id,
        sourceType: 'photo',
        status: 'awaiting_grouping',
        fileSizeBytes: rows.reduce((n, r) => n + r.size_bytes, 0),
      });
      photoJob.photo_next_index = Math.max(...rows.map((r) => r.index)) + 1;
      photoJob.photo_count_hint = 0;
      photoJob.import_batch_id = batch.id;
      await putJobOnce(photoJob);
    }
    jobs.push({
      job_id: jobId,
      room_id: room.id,
      room_name: room.name,
      photos: photos.length,
      room_created: created.has(room.id),
    });
  }
  for (const m of arrived.filter((a) => a.type !== 'photo')) {
    const room = await getRoom(m.room_id, true);
    if (!room) continue;
    const mediaJob = newJobRecord({
      id: m.job_id,
      room,
      userId: batch.created_by_user_id,
      sourceType: m.type === 'audio' ? 'audio' : 'video',
      status: 'awaiting_confirmation',
      mediaKey: m.key,
      originalFilename: m.filename,
      fileSizeBytes: results.get(m.media_id)?.size_bytes ?? m.size_bytes,
    });
    mediaJob.import_batch_id = batch.id;
    await putJobOnce(mediaJob);
    await dispatch('probe', { job_id: mediaJob.id });
    jobs.push({
      job_id: m.job_id,
      room_id: room.id,
      room_name: room.name,
      photos: 0,
      room_created: created.has(room.id),
    });
  }

  const failedMedia = plan.media.filter((m) => !results.get(m.media_id)?.ok);
  // A retry adds to what earlier runs imported; its failures replace theirs.
  const imported = (batch.imported_before ?? 0) + arrived.length;
  const status = runStatus({ imported, failed: failedMedia.length });
  // Logged before the batch shows its end, so a batch that has ended has its reasons in the log.
  for (const m of failedMedia.slice(0, 20))
    await log.warn(`${m.filename}: ${results.get(m.media_id)?.error ?? 'not downloaded (its unit gave up)'}`);
  await log.info(
    `Capture import ${status}: ${plural(arrived.length, 'item')} imported, ${failedMedia.length} failed, ${plan.skipped} skipped`,
  );
  await updateImportBatch(
    batch.id,
    { status: 'importing', readJobId: job.id },
    {
      imported,
      failed: failedMedia.length,
      ...(batch.runs === 1 ? { skipped: plan.skipped } : {}),
      failed_media_ids: failedMedia.map((m) => m.media_id),
      jobs: [...batch.jobs, ...jobs],
      status,
      finished_at: new Date().toISOString(),
    },
  );
  return { kind: 'next', set: { items_found: arrived.length } };
}
