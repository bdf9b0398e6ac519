/**
 * The units of the PDF import's `extract` stage (planned by plan-stage.ts): one per run of photos (or of pages
 * to mark) of one document. An embedded photo is taken out as stored (a
 * JPEG's own bytes); a page_image page is rendered and the AI marks its
 * photos, which are cut from the page (no box: the page is dropped; no
 * answer: the whole page is kept). Each photo is written as
 * photos/pdf_####.jpg against the document's extracted-bytes budget, and
 * the unit's result is recorded for the group stage.
 */
import pLimit from 'p-limit';
import sharp from 'sharp';
import { blobKeys } from '../../blob/keys';
import { putJpeg } from '../../blob/objects';
import type { StageContext } from '../../orchestrator/pipeline';
import { pdfFilename } from '../../photos/rules';
import type { PdfReader } from '../../pdf/reader';
import type { PdfPhotoFinding } from './finding';
import { documentName, openDocument } from './layout-stage';
import { BYTES_LIMIT_REACHED, MAX_REGIONS_PER_PAGE } from './limit-rules';
import { markPhotoBoxes } from './recipe-call';
import { pageImageFindings, wholePageFinding } from './page-image-rules';
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

/** Long edge of a page rendered for the AI to mark, and of the photos cut from it. */
const PAGE_RENDER_LONG_EDGE = 1600;

export const pdfPhotoKey = (job: StageContext['job'], index: number) =>
  `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}photos/${pdfFilename(index)}`;

class BudgetReached extends Error {}

export async function extractUnit(ctx: StageContext, index: number): Promise<void> {
  const { job } = ctx;
  const runId = job.run_id as string;
  const unit = (await getExtractionPlan(job, runId)).units[index];
  if (!unit) throw new Error(`extraction unit ${index} is outside the plan`);
  const result: ExtractionResult = { unit: index, photos: [], whole_pages: 0, dropped_pages: 0, limit: null };

  // Bytes already counted against the budget (a batch of embedded photos, reserved in one write).
  let prepaid = 0;
  const write = async (photoIndex: number, finding: PdfPhotoFinding, jpeg: Buffer) => {
    if (prepaid >= jpeg.length) prepaid -= jpeg.length;
    else if (!(await reserveExtractedBytes(job.id, runId, unit.document, jpeg.length))) throw new BudgetReached();
    const { width, height } = await sharp(jpeg).metadata();
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

  // Stored JPEGs need no pdf.js: it is loaded only if a page has to be rendered.
  const reader = await openDocument(job, unit.document, { checkRendering: false });
  try {
    // Embedded photos in batches of at most BATCH_BYTES: read, reserved in one write, then written side by
    // side. Only one batch's bytes are held at once, however large the photos.
    const limit = pLimit(BUCKET_WRITES_IN_FLIGHT);
    const writeBatch = async (batch: { task: EmbeddedTask; jpeg: Buffer }[], bytes: number) => {
      if (bytes > 0 && (await reserveExtractedBytes(job.id, runId, unit.document, bytes))) {
        prepaid = bytes;
        await Promise.all(batch.map(({ task, jpeg }) => limit(() => write(task.index, task.finding, jpeg))));
      } else {
        // Near the budget, photos are counted one by one in order, so the photos before the limit are kept.
        for (const { task, jpeg } of batch) await write(task.index, task.finding, jpeg);
      }
    };
    let batch: { task: EmbeddedTask; jpeg: Buffer }[] = [];
    let bytes = 0;
    for (const task of unit.tasks) {
      if (task.kind !== 'embedded') continue;
      const jpeg = await reader.imageJpeg(task.finding.page, task.placement);
      batch.push({ task, jpeg });
      bytes += jpeg.length;
      if (bytes < BATCH_BYTES) continue;
      await writeBatch(batch, bytes);
      batch = [];
      bytes = 0;
    }
    await writeBatch(batch, bytes);
    // A rendered page is an AI call: the heartbeat after each one shows the unit is moving.
    for (const task of unit.tasks) {
      if (task.kind !== 'page') continue;
      await markPage(ctx, unit.document, reader, task, write, result);
      await ctx.heartbeat();
    }
  } catch (err) {
    if (!(err instanceof BudgetReached)) throw err;
    result.limit = BYTES_LIMIT_REACHED;
  } finally {
    await reader.close();
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
