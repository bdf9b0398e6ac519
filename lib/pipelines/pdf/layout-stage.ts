/**
 * The PDF import's first stage, `layout`: each contents list of the job is
 * opened (a document that cannot be is recorded with the reason, for the
 * user and the failure report) and its pages are cut into layout units; each
 * unit reads its pages' text runs and image placements (no image is decoded)
 * and keeps them in the bucket for the plan stage. A document's first unit is
 * read while the stage has the document open, so a list of up to one unit's
 * pages is read without a fan-out.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { makeWorkDir } from '../../media/work-dirs';
import { downloadObject } from '../../blob/objects';
import type { Job, PdfDocument } from '../../jobs/job-record-rules';
import type { PdfPageLayout } from '../../pdf/layout';
import type { OpenOptions, PdfReader } from '../../pdf/reader';
import { openSandboxedPdf } from '../../pdf/sandbox';
import { PdfUnreadable } from '../../pdf/unreadable';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { LAYOUT_PAGES_PER_UNIT, pageRanges, pagesToRead } from './limit-rules';
import {
  getReadPlan,
  type LayoutUnit,
  putReadPlan,
  putUnitFailure,
  putUnitLayouts,
  type ReadPlanDocument,
} from './run-store';

/** Layout units read at once. */
const LAYOUT_CONCURRENCY = 8;

/** The job's documents that arrived and wait for their read. */
const queuedDocuments = (job: Job): PdfDocument[] => (job.pdf_documents ?? []).filter((d) => d.state === 'queued');

/** A document's file name as uploaded. */
export const documentName = (job: Job, document: number): string =>
  job.pdf_documents?.find((d) => d.document === document)?.original_filename ?? `document ${document + 1}`;

/** Where one of the job's documents is kept in the bucket. */
export function documentKey(job: Job, document: number): string {
  const entry = job.pdf_documents?.find((d) => d.document === document);
  if (!entry) throw new Error(`document ${document} is not part of this job`);
  return entry.key;
}

/** The error for a document whose uploaded file is gone from the bucket. */
export const missingDocument = () =>
  new PdfUnreadable('corrupt', { cause: new Error('the uploaded file is missing from storage') });

/**
 * Opens one of the job's documents from the bucket, in a sandbox of its own
 * (lib/pdf/sandbox.ts); throws PdfUnreadable for a file that is not a
 * readable PDF, or one that passes the sandbox's memory or time.
 */
export async function openDocument(job: Job, document: number, options: OpenOptions = {}): Promise<PdfReader> {
  return (await openDocumentTimed(job, document, options)).reader;
}

/** openDocument, with the time its download and its open took (ms). */
async function openDocumentTimed(job: Job, document: number, options: OpenOptions) {
  // The document goes from the bucket to a file the sandbox's child reads: the worker never holds its bytes.
  const dir = await makeWorkDir('pdf-document');
  try {
    const started = performance.now();
    const file = path.join(dir, 'document.pdf');
    if (!(await downloadObject(documentKey(job, document), file))) throw missingDocument();
    const downloaded = performance.now();
    const reader = await openSandboxedPdf({ file }, options);
    return { reader, downloadMs: downloaded - started, openMs: performance.now() - downloaded };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const failureText = (err: unknown) =>
  err instanceof PdfUnreadable ? err.message : `The document could not be read: ${String(err)}`;

export async function planLayouts(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const documents: ReadPlanDocument[] = [];
  const units: LayoutUnit[] = [];
  for (const doc of queuedDocuments(job)) {
    let reader: PdfReader | null = null;
    try {
      const timed = await openDocumentTimed(job, doc.document, {});
      reader = timed.reader;
      const opened = performance.now();
      const { pages, limit } = pagesToRead(reader.pageCount);
      const own = pageRanges(pages, LAYOUT_PAGES_PER_UNIT).map(
        (range, n): LayoutUnit => ({ index: units.length + n, document: doc.document, ...range }),
      );
      // The document is open here: its first unit is read now rather than opened again by a unit of its own.
      await putUnitLayouts(job, job.run_id as string, own[0].index, await readPages(reader, own[0]));
      own[0].read_by_plan = true;
      units.push(...own);
      documents.push({ document: doc.document, pages, producer: reader.producer, failure: null, limit });
      // How long the open (download, sandbox, parse) and the first unit took: where a slow read spends its time.
      const took = `downloaded in ${seconds(timed.downloadMs)}, opened in ${seconds(timed.openMs)}, first ${own[0].last - own[0].first + 1} page(s) read in ${seconds(performance.now() - opened)}`;
      await log.info(`${doc.original_filename}: ${pages} page(s) to read${limit ? ` (${limit})` : ''}; ${took}`);
    } catch (err) {
      if (!(err instanceof PdfUnreadable)) throw err;
      documents.push({ document: doc.document, pages: 0, producer: null, failure: failureText(err), limit: null });
      await log.warn(`${doc.original_filename}: ${failureText(err)}`);
    } finally {
      await reader?.close();
    }
    await ctx.heartbeat();
  }
  await putReadPlan(job.id, { run_id: job.run_id as string, documents, units });
  return units.some((unit) => !unit.read_by_plan)
    ? { kind: 'fanout', units: units.length, concurrency: LAYOUT_CONCURRENCY }
    : { kind: 'next' };
}

/** The text and image placements of a unit's pages, in page order. */
async function readPages(reader: PdfReader, unit: LayoutUnit): Promise<PdfPageLayout[]> {
  const pages: PdfPageLayout[] = [];
  for (let page = unit.first; page <= unit.last; page++) pages.push(await reader.pageLayout(page));
  return pages;
}

/** One layout unit: its pages' text and image placements, kept in the bucket. */
export async function readLayoutUnit(ctx: StageContext, index: number): Promise<void> {
  const { job } = ctx;
  const runId = job.run_id as string;
  const unit = (await getReadPlan(job.id, runId)).units[index];
  if (!unit) throw new Error(`layout unit ${index} is outside the plan`);
  if (unit.read_by_plan) return;
  let reader: PdfReader | null = null;
  try {
    reader = await openDocument(job, unit.document);
    await putUnitLayouts(job, runId, index, await readPages(reader, unit));
  } catch (err) {
    // A page that cannot be read (damaged, or past a reading limit) fails its document, as an open would.
    if (!(err instanceof PdfUnreadable)) throw err;
    await putUnitFailure(job, runId, index, failureText(err));
  } finally {
    await reader?.close();
  }
}
