/**
 * One download unit of a capture import (spec: Capture source integration,
 * import job steps 4-6): its media's download URLs signed in one call just
 * before the downloads start (an hour's life), then CAPTURE_SOURCE_IMPORT_CONCURRENCY
 * downloads in flight. Each download is guarded
 * (lib/integrations/guarded-download.ts): the capture source's download hosts
 * only, timeouts, and no more bytes than it declared for the item within the
 * upload limits. A photo is read and written as an upright JPEG where its
 * room job expects it; when its original cannot be read, the capture
 * source's proxy is used instead. A video or voice note streams straight into
 * the bucket (a multipart upload: its bytes never all in memory, never on
 * disk), stored as the type its first bytes show, never the type the capture
 * source declared (a recording listed as text/html would be served as a page
 * from the bucket's origin); bytes that are no recording fail the item. A
 * download a guard stops fails that item with the reason. Each
 * item's sha256 and size go on its Upload record; the unit's results are
 * written once, so a unit that runs again does nothing.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import pLimit from 'p-limit';
import { putJpeg, putStream } from '../../blob/objects';
import { type DownloadLimits, downloadCap, uploadLimit } from '../../imports/capture/import-rules';
import { putUploadRecords } from '../../imports/capture/import-store';
import { addBatchProgress } from '../../imports/store';
import { settings } from '../../config';
import { faultPoint } from '../../faults/fault-points';
import { type CaptureSignedMedia, captureDownloadGuard } from '../../integrations/capture-source';
import { downloadBytes, openDownload } from '../../integrations/guarded-download';
import { normalizePhoto } from '../../media/normalize';
import type { StageContext } from '../../orchestrator/pipeline';
import { SINGLE_PHOTO_MAX_BYTES } from '../../photos/upload-rules';
import { maxUploadBytes } from '../../uploads/rules';
import { RECORDING_SNIFF_BYTES, recordingContentType } from '../../uploads/sniff-rules';
import { captureAnswer, runnerBatch } from './expand-stage';
import { type DownloadResult, getImportPlan, getUnitResults, type PlannedMedia, putUnitResults } from './run-store';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const limitsOf = (): DownloadLimits => ({
  photoBytes: SINGLE_PHOTO_MAX_BYTES,
  recordingBytes: maxUploadBytes(settings()),
});

async function photo(entry: PlannedMedia, signed: CaptureSignedMedia): Promise<DownloadResult> {
  const cap = downloadCap(entry, limitsOf());
  if (typeof cap === 'string') return failed(entry, cap);
  const original = await downloadBytes(signed.original_url, captureDownloadGuard(cap));
  const base = {
    media_id: entry.media_id,
    ok: true,
    sha256: sha256(original),
    size_bytes: original.length,
    error: null,
  };
  try {
    const { jpeg, width, height } = await normalizePhoto(original);
    await putJpeg(entry.key, jpeg);
    return { ...base, width, height, from_proxy: false };
  } catch (unreadable) {
    if (!signed.proxy_url) throw unreadable;
    // The proxy's size is not declared: it is held to the photo limit.
    const proxy = await downloadBytes(signed.proxy_url, captureDownloadGuard(uploadLimit('photo', limitsOf())));
    const { jpeg, width, height } = await normalizePhoto(proxy);
    await putJpeg(entry.key, jpeg);
    return { ...base, width, height, from_proxy: true };
  }
}

/** The bytes passing through, hashed and counted on the way. */
async function* measured(body: AsyncIterable<Buffer>, sums: { hash: ReturnType<typeof createHash>; size: number }) {
  for await (const piece of body) {
    sums.hash.update(piece);
    sums.size += piece.length;
    yield piece;
  }
}

/** The body's first `bytes` bytes (fewer when it ends sooner), and the whole body again, those bytes first. */
async function peek(body: AsyncIterable<Buffer>, bytes: number) {
  const pieces = body[Symbol.asyncIterator]();
  const read: Buffer[] = [];
  let size = 0;
  while (size < bytes) {
    const next = await pieces.next();
    if (next.done) break;
    read.push(next.value);
    size += next.value.length;
  }
  const head = Buffer.concat(read);
  async function* whole() {
    yield head;
    for (let next = await pieces.next(); !next.done; next = await pieces.next()) yield next.value;
  }
  return { head, whole: whole() };
}

/** The recording is not audio or video: nothing is stored. */
const notARecording = (entry: PlannedMedia) =>
  `The capture source's file is not a ${entry.type === 'audio' ? 'voice note' : 'video'}: its bytes are in no audio or video format.`;

async function recording(entry: PlannedMedia, signed: CaptureSignedMedia): Promise<DownloadResult> {
  const cap = downloadCap(entry, limitsOf());
  if (typeof cap === 'string') return failed(entry, cap);
  const { body } = await openDownload(signed.original_url, captureDownloadGuard(cap));
  const sums = { hash: createHash('sha256'), size: 0 };
  try {
    const { head, whole } = await peek(body, RECORDING_SNIFF_BYTES);
    const contentType = recordingContentType(head, entry.type === 'audio' ? 'audio' : 'video');
    if (!contentType) return failed(entry, notARecording(entry));
    await putStream(entry.key, Readable.from(measured(whole, sums), { objectMode: false }), contentType);
  } finally {
    // An upload that failed on its own side stops the download too.
    body.destroy();
  }
  return {
    media_id: entry.media_id,
    ok: true,
    sha256: sums.hash.digest('hex'),
    size_bytes: sums.size,
    width: null,
    height: null,
    from_proxy: false,
    error: null,
  };
}

const failed = (entry: PlannedMedia, error: string): DownloadResult => ({
  media_id: entry.media_id,
  ok: false,
  sha256: null,
  size_bytes: null,
  width: null,
  height: null,
  from_proxy: false,
  error,
});

export async function downloadUnit(ctx: StageContext, unit: number): Promise<void> {
  const { job } = ctx;
  const runId = job.run_id as string;
  if (await getUnitResults(job.id, runId, unit)) return;
  const plan = await getImportPlan(job, runId);
  const entries = plan.units[unit].map((i) => plan.media[i]);
  const { batch, client, connection } = await runnerBatch(job);
  const signed = new Map(
    captureAnswer(await client.sign(entries.map((e) => e.media_id))).data.map((s) => [s.id, s] as const),
  );
  const limit = pLimit(Math.max(1, settings().CAPTURE_SOURCE_IMPORT_CONCURRENCY));
  let done = 0;
  const results = await Promise.all(
    entries.map((entry) =>
      limit(async () => {
        const urls = signed.get(entry.media_id);
        let result: DownloadResult;
        try {
          if (!urls) result = failed(entry, 'The capture source no longer offers it for download.');
          else result = entry.type === 'photo' ? await photo(entry, urls) : await recording(entry, urls);
        } catch (err) {
          result = failed(entry, err instanceof Error ? err.message : String(err));
        }
        done += 1;
        await ctx.heartbeat(done / entries.length);
        return result;
      }),
    ),
  );
  faultPoint('capture:downloaded', [job.id, job.claim_id, batch.id]);
  await putUploadRecords(
    entries.map((entry, i) => ({
      connection_id: connection.id,
      external_media_id: entry.media_id,
      batch_id: batch.id,
      job_id: entry.job_id,
      status: results[i].ok ? ('ready' as const) : ('failed' as const),
      sha256: results[i].sha256,
      size_bytes: results[i].size_bytes,
      meta: entry.meta,
      updated_at: new Date().toISOString(),
    })),
  );
  await putUnitResults(job.id, runId, unit, results);
  const ok = results.filter((r) => r.ok).length;
  await addBatchProgress(batch.id, job.id, ok, results.length - ok);
}
