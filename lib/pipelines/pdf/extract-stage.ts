/**
 * The units of the PDF import's `extract` stage (planned by plan-stage.ts):
 * one per run of photos (or of pages to mark) of one document. An embedded
 * photo stored as a JPEG is taken out as its own bytes, read from the
 * uploaded document by the byte range its layout recorded (the document is
 * not opened for it); another embedded image is read through the document. A
 * page_image page is rendered and the AI marks its photos, which are cut from
 * the page (no box: the page is dropped; no answer: the whole page is kept).
 * Each photo is written as photos/pdf_####.jpg against the document's
 * extracted-bytes budget, and the unit's result is recorded for the group
 * stage. A damaged image (its stored bytes are no image, or it must be
 * rendered and cannot be) leaves out its photo only: the unit goes on, and
 * the photo is recorded as skipped, for the log, the job and the report.
 */
import pLimit from 'p-limit';
import sharp from 'sharp';
import { blobKeys } from '../../blob/keys';
import { putJpeg, readObjectRanges } from '../../blob/objects';
import type { ByteRange } from '../../blob/range-rules';
import type { StageContext } from '../../orchestrator/pipeline';
import { pdfFilename } from '../../photos/rules';
import { type PdfReader, PdfUnreadable } from '../../pdf/reader';
import type { PdfPhotoFinding } from './finding';
import { documentKey, documentName, missingDocument, openDocument } from './layout-stage';
import { BYTES_LIMIT_REACHED, MAX_REGIONS_PER_PAGE } from './limit-rules';
import { markPhotoBoxes } from './recipe-call';
import { pageImageFindings, wholePageFinding } from './strategies/page-image-rules';
import {
  type ExtractedPhoto,
  type ExtractionResult,
  type ExtractionTask,
  getExtractionPlan,
  putExtractionResult,
  reserveExtractedBytes,
} from './run-store';

/** Photo writes (bucket PUTs) in flight per unit. */
const BUCKET_WRITES_IN_FLIGHT = 16;

/** Bytes of embedded photos read and counted against the budget at a time (and so held in memory at once). */
const BATCH_BYTES = 64 * 1024 ** 2;

type EmbeddedTask = Extract<ExtractionTask, { kind: 'embedded' }>;

/** An embedded photo of a batch: where its stored JPEG lies in the document, or its bytes already read. */
interface BatchEntry {
  task: EmbeddedTask;
  range?: ByteRange;
  jpeg?: Buffer;
}

/** The batch's JPEGs in order: the stored ones read from the document with as few Range GETs as they allow. */
async function batchJpegs(key: string, batch: readonly BatchEntry[]): Promise<Buffer[]> {
  const ranged = batch.filter((entry) => entry.range);
  const read =
    ranged.length > 0
      ? await readObjectRanges(
          key,
          ranged.map((entry) => entry.range as ByteRange),
        )
      : [];
  if (!read) throw missingDocument();
  let next = 0;
  return batch.map((entry) => (entry.range ? read[next++] : (entry.jpeg as Buffer)));
}

/** Long edge of a page rendered for the AI to mark, and of the photos cut from it. */
const PAGE_RENDER_LONG_EDGE = 1600;

export const pdfPhotoKey = (job: StageContext['job'], index: number) =>
  `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}photos/${pdfFilename(index)}`;

class BudgetReached extends Error {}

/**
 * What `read` gives, or null when the document is damaged there (PdfUnreadable). Only the document's damage
 * is caught: the document was opened whole by the layout stage, so it is one image or page that fails.
 */
async function damagedAsNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof PdfUnreadable) return null;
    throw err;
  }
}

export async function extractUnit(ctx: StageContext, index: number): Promise<void> {
  const { job } = ctx;
  const runId = job.run_id as string;
  const unit = (await getExtractionPlan(job, runId)).units[index];
  if (!unit) throw new Error(`extraction unit ${index} is outside the plan`);
  const result: ExtractionResult = {
    unit: index,
    photos: [],
    skipped: [],
    whole_pages: 0,
    dropped_pages: 0,
    limit: null,
  };
  const skip = async (page: number, reason: string) => {
    result.skipped?.push({ page, reason });
    await ctx.log.warn(
      `${documentName(job, unit.document)}, page ${page}: a photo could not be read and was left out (${reason})`,
    );
  };

  // Bytes already counted against the budget (a batch of embedded photos, reserved in one write).
  let prepaid = 0;
  const write = async (photoIndex: number, finding: PdfPhotoFinding, jpeg: Buffer) => {
    // Stored bytes that are no image (a damaged stream) are left out before anything is counted or written.
    const size = await sharp(jpeg)
      .metadata()
      .catch(() => null);
    if (!size) return skip(finding.page, 'its stored bytes are not an image');
    if (prepaid >= jpeg.length) prepaid -= jpeg.length;
    else if (!(await reserveExtractedBytes(job.id, runId, unit.document, jpeg.length))) throw new BudgetReached();
    const { width, height } = size;
    await putJpeg(pdfPhotoKey(job, photoIndex), jpeg);
    const photo: ExtractedPhoto = {
      index: photoIndex,
      document: unit.document,
      finding,
      size_bytes: jpeg.length,
      width: width ?? 0,
      height: height ?? 0,
    };
    result.photos.push(photo);
  };

  // The document is opened only for what its stored JPEGs cannot give: another kind of image, a page to mark.
  let reader: PdfReader | null = null;
  const opened = async () => (reader ??= await openDocument(job, unit.document, { checkRendering: false }));
  try {
    // Embedded photos in batches of at most BATCH_BYTES: read, reserved in one write, then written side by
    // side. Only one batch's bytes are held at once, however large the photos.
    const limit = pLimit(BUCKET_WRITES_IN_FLIGHT);
    const writeBatch = async (batch: BatchEntry[], bytes: number) => {
      const jpegs = await batchJpegs(documentKey(job, unit.document), batch);
      if (bytes > 0 && (await reserveExtractedBytes(job.id, runId, unit.document, bytes))) {
        prepaid = bytes;
        await Promise.all(batch.map(({ task }, i) => limit(() => write(task.index, task.finding, jpegs[i]))));
      } else {
        // Near the budget, photos are counted one by one in order, so the photos before the limit are kept.
        for (const [i, { task }] of batch.entries()) await write(task.index, task.finding, jpegs[i]);
      }
    };
    let batch: BatchEntry[] = [];
    let bytes = 0;
    for (const task of unit.tasks) {
      if (task.kind !== 'embedded') continue;
      const range = task.placement.jpegRange;
      let entry: BatchEntry;
      if (range) entry = { task, range };
      else {
        const reader = await opened();
        const jpeg = await damagedAsNull(() => reader.imageJpeg(task.finding.page, task.placement));
        if (!jpeg) {
          await skip(task.finding.page, 'its image is damaged');
          continue;
        }
        entry = { task, jpeg };
      }
      batch.push(entry);
      bytes += entry.range?.length ?? entry.jpeg?.length ?? 0;
      if (bytes < BATCH_BYTES) continue;
      await writeBatch(batch, bytes);
      batch = [];
      bytes = 0;
    }
    await writeBatch(batch, bytes);
    // A rendered page is an AI call: the heartbeat after each one shows the unit is moving.
    for (const task of unit.tasks) {
      if (task.kind !== 'page') continue;
      const document = await opened();
      const marked = await damagedAsNull(() =>
        markPage(ctx, unit.document, document, task, write, result).then(() => true),
      );
      if (!marked) await skip(task.page, 'the page cannot be rendered');
      await ctx.heartbeat();
    }
  } catch (err) {
    if (!(err instanceof BudgetReached)) throw err;
    result.limit = BYTES_LIMIT_REACHED;
  } finally {
    await (reader as PdfReader | null)?.close();
  }
  await putExtractionResult(job, runId, result);
}

/** A page_image page: rendered, its photos marked by the AI and cut out (or the page kept whole, or dropped). */
async function markPage(
  ctx: StageContext,
  document: number,
  reader: PdfReader,
  task: Extract<ExtractionTask, { kind: 'page' }>,
  write: (index: number, finding: PdfPhotoFinding, jpeg: Buffer) => Promise<void>,
  result: ExtractionResult,
): Promise<void> {
  const frame = { page: task.page, width: task.width, height: task.height };
  const render = await reader.renderPage(task.page, PAGE_RENDER_LONG_EDGE);
  const boxes = await markPhotoBoxes(
    { jobId: ctx.job.id, teamId: ctx.job.team_id, document: documentName(ctx.job, document) },
    frame,
    render,
  );
  if (boxes === null) {
    // The AI could not be asked: the page is kept whole rather than lost (counted once it is written).
    await write(task.indexBase, wholePageFinding(frame), render);
    result.whole_pages++;
    return;
  }
  const findings = pageImageFindings(frame, boxes).slice(0, MAX_REGIONS_PER_PAGE);
  if (findings.length === 0) result.dropped_pages++;
  for (const [k, finding] of findings.entries()) {
    if (finding.source.kind !== 'region') continue;
    await write(
      task.indexBase + k,
      finding,
      await reader.renderRegion(task.page, finding.source.box, PAGE_RENDER_LONG_EDGE),
    );
  }
}
