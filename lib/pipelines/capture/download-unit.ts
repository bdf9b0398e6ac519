/**
 * One download unit of a capture import (spec: Capture source integration,
 * import job steps 4-6): its media's download URLs signed in one call just
 * before the downloads start (an hour's life), then CAPTURE_SOURCE_IMPORT_CONCURRENCY
 * downloads in flight. A photo is read and written as an upright JPEG where
 * its room job expects it; when its original cannot be read, the capture
 * source's proxy is used instead. A video or voice note streams through a
 * temporary file into the bucket (its bytes never all in memory). Each
 * item's sha256 and size go on its Upload record; the unit's results are
 * written once, so a unit that runs again does nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pLimit from 'p-limit';
import { putFile, putJpeg } from '../../blob/objects';
import { putUploadRecords } from '../../capture/import-store';
import { addBatchProgress } from '../../imports/store';
import { settings } from '../../config';
import type { CaptureSignedMedia } from '../../integrations/capture-source';
import { normalizePhoto } from '../../media/normalize';
import type { StageContext } from '../../orchestrator/pipeline';
import { withRetry } from '../../retry';
import { captureAnswer, runnerBatch } from './expand-stage';
import { type DownloadResult, getImportPlan, getUnitResults, type PlannedMedia, putUnitResults } from './run-store';

/** A download refused for good (403, 404): retrying cannot help. */
class RefusedDownload extends Error {}

const DOWNLOAD_ATTEMPTS = 3;

/** GET of a signed URL with retries of what may pass (network, 5xx, 429); the response, body unread. */
function download(url: string): Promise<Response> {
  return withRetry(
    async () => {
      const res = await fetch(url);
      if (res.ok && res.body) return res;
      await res.body?.cancel();
      if (res.status >= 500 || res.status === 429) throw new Error(`download failed: HTTP ${res.status}`);
      throw new RefusedDownload(`download refused: HTTP ${res.status}`);
    },
    {
      attempts: DOWNLOAD_ATTEMPTS,
      backoffMs: 300,
      jitter: true,
      retryable: (err) => !(err instanceof RefusedDownload),
    },
  );
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function photo(entry: PlannedMedia, signed: CaptureSignedMedia): Promise<DownloadResult> {
  const original = Buffer.from(await (await download(signed.original_url)).arrayBuffer());
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
    const proxy = Buffer.from(await (await download(signed.proxy_url)).arrayBuffer());
    const { jpeg, width, height } = await normalizePhoto(proxy);
    await putJpeg(entry.key, jpeg);
    return { ...base, width, height, from_proxy: true };
  }
}

async function recording(entry: PlannedMedia, signed: CaptureSignedMedia): Promise<DownloadResult> {
  const dir = join(tmpdir(), `capture-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  try {
    const path = join(dir, 'media');
    const hash = createHash('sha256');
    let size = 0;
    const res = await download(signed.original_url);
    const counting = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(
      Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
      counting,
      createWriteStream(path),
    );
    await putFile(entry.key, path, entry.content_type || 'application/octet-stream');
    return {
      media_id: entry.media_id,
      ok: true,
      sha256: hash.digest('hex'),
      size_bytes: size,
      width: null,
      height: null,
      from_proxy: false,
      error: null,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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
