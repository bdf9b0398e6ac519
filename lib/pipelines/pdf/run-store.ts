/**
 * What a PDF import run keeps between its stages, keyed by run so a
 * restarted run never reads what an interrupted one left:
 *
 *  - the read plan (DynamoDB run record): each document's page count and
 *    producer, or why it could not be opened, and the layout units;
 *  - each layout unit's pages (bucket JSON: text runs of hundreds of pages
 *    are far over DynamoDB's 400 KB row);
 *  - the extraction plan (bucket JSON): per document the recipe and what it
 *    found, and the extraction units with the photos each takes out;
 *  - one result per extraction unit (bucket JSON: a unit's findings can
 *    pass 400 KB, and one object per unit is what the group stage reads).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { putJson, readObject } from '../../blob/objects';
import { db, isConditionalCheckFailed, tableName } from '../../db/client';
import { blobKeys } from '../../blob/keys';
import type { Job } from '../../jobs/job-record-rules';
import type { PdfImagePlacement, PdfPageLayout } from '../../pdf/layout';
import { getRunRecord, putRunRecord, runRecordKey } from '../run-record-store';
import type { PdfPhotoFinding } from './finding';
import { MAX_EXTRACTED_BYTES } from './limit-rules';
import type { Recipe } from './recipe';

type JobPlace = Pick<Job, 'team_id' | 'claim_id' | 'id'>;

export interface LayoutUnit {
  index: number;
  document: number;
  /** 1-based, inclusive. */
  first: number;
  last: number;
  /** Read by the stage that planned it (the document was open there); its unit then has nothing to do. */
  read_by_plan?: boolean;
}

export interface ReadPlanDocument {
  document: number;
  /** Pages read: the document's own count, capped at the page limit. */
  pages: number;
  producer: string | null;
  /** Set when the document could not be opened (it is reported, and nothing is read from it). */
  failure: string | null;
  /** Set when the page limit cut the read short. */
  limit: string | null;
}

export interface ReadPlan {
  run_id: string;
  documents: ReadPlanDocument[];
  units: LayoutUnit[];
}

/** One photo an extraction unit takes out of its page: an embedded image, or page_image's page to mark. */
export type ExtractionTask =
  | { kind: 'embedded'; index: number; finding: PdfPhotoFinding; placement: PdfImagePlacement }
  /** A rendered page whose photos the AI marks; its photos take indexBase, indexBase + 1, ... */
  | { kind: 'page'; indexBase: number; page: number; width: number; height: number };

export interface ExtractionUnit {
  index: number;
  document: number;
  tasks: ExtractionTask[];
}

export interface DocumentReading {
  document: number;
  recipe: Recipe | null;
  /** Where the recipe came from: a stored template (by hash or signature), the AI, or the fallback. */
  recipe_source: 'template' | 'template-signature' | 'ai' | 'fallback' | null;
  strategy_used: string | null;
  first_page: number | null;
  last_page: number | null;
  has_text_layer: boolean;
  /** Photos the plan found (embedded) or pages it will render (page images). */
  planned: number;
  /** Set when a limit (images) cut the plan short. */
  limit: string | null;
}

export interface ExtractionPlan {
  run_id: string;
  readings: DocumentReading[];
  /** Documents whose pages could not all be read (a layout unit failed): not read, with the reason. */
  failures?: { document: number; failure: string }[];
  units: ExtractionUnit[];
}

/** One photo written by an extraction unit. */
export interface ExtractedPhoto {
  index: number;
  document: number;
  finding: PdfPhotoFinding;
  size_bytes: number;
  width: number;
  height: number;
}

/** A photo left out because its image (or the page it is cut from) could not be read. */
interface SkippedPhoto {
  page: number;
  /** Why, for the log. */
  reason: string;
}

export interface ExtractionResult {
  unit: number;
  photos: ExtractedPhoto[];
  /** Photos left out, damaged (absent on results recorded before it existed). */
  skipped?: SkippedPhoto[];
  /** Pages page_image kept whole because the AI could not be asked. */
  whole_pages: number;
  /** Pages page_image dropped (the AI found no photo on them). */
  dropped_pages: number;
  /** Set when the extracted-image budget stopped the unit. */
  limit: string | null;
}

const READ_PLAN = 'PDFREADPLAN';

const runPrefix = (job: JobPlace, runId: string) =>
  `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}pdf-runs/${runId}/`;

export const putReadPlan = (jobId: string, plan: ReadPlan) =>
  putRunRecord(jobId, runRecordKey(READ_PLAN, plan.run_id), 'PdfReadPlan', plan);

export async function getReadPlan(jobId: string, runId: string): Promise<ReadPlan> {
  const plan = await getRunRecord<ReadPlan>(jobId, runRecordKey(READ_PLAN, runId));
  if (!plan) throw new Error(`no read plan for run ${runId}`);
  return plan;
}

const unitLayoutsKey = (job: JobPlace, runId: string, unit: number) =>
  `${runPrefix(job, runId)}layouts/${String(unit).padStart(5, '0')}.json`;

export const putUnitLayouts = (job: JobPlace, runId: string, unit: number, pages: PdfPageLayout[]) =>
  putJson(unitLayoutsKey(job, runId, unit), pages);

/** Records that a unit's pages could not be read, and why (the user's message). */
export const putUnitFailure = (job: JobPlace, runId: string, unit: number, failure: string) =>
  putJson(unitLayoutsKey(job, runId, unit), { failure });

/** The pages of the given layout units in unit order, or the first failure among them. */
export async function getUnitLayouts(
  job: JobPlace,
  runId: string,
  units: number[],
): Promise<{ pages: PdfPageLayout[]; failure: string | null }> {
  const pages: PdfPageLayout[] = [];
  for (const unit of units) {
    const stored = await readObject(unitLayoutsKey(job, runId, unit));
    if (!stored) throw new Error(`the pages of layout unit ${unit} are missing from storage`);
    const kept = JSON.parse(stored.body.toString('utf8')) as PdfPageLayout[] | { failure: string };
    if (!Array.isArray(kept)) return { pages: [], failure: kept.failure };
    pages.push(...kept);
  }
  return { pages, failure: null };
}

export const putExtractionPlan = (job: JobPlace, plan: ExtractionPlan) =>
  putJson(`${runPrefix(job, plan.run_id)}extraction-plan.json`, plan);

export async function getExtractionPlan(job: JobPlace, runId: string): Promise<ExtractionPlan> {
  const stored = await readObject(`${runPrefix(job, runId)}extraction-plan.json`);
  if (!stored) throw new Error(`no extraction plan for run ${runId}`);
  return JSON.parse(stored.body.toString('utf8')) as ExtractionPlan;
}

const resultKey = (job: JobPlace, runId: string, unit: number) =>
  `${runPrefix(job, runId)}results/${String(unit).padStart(5, '0')}.json`;

/** A unit's result; a unit run again replaces its own (it wrote the same photo names). */
export const putExtractionResult = (job: JobPlace, runId: string, result: ExtractionResult) =>
  putJson(resultKey(job, runId, result.unit), result);

/** The results of units 0..unitCount-1, in unit order (the fan-in guarantees each was written). */
export async function listExtractionResults(
  job: JobPlace,
  runId: string,
  unitCount: number,
): Promise<ExtractionResult[]> {
  return Promise.all(
    Array.from({ length: unitCount }, async (_, unit) => {
      const stored = await readObject(resultKey(job, runId, unit));
      if (!stored) throw new Error(`the result of extraction unit ${unit} is missing from storage`);
      return JSON.parse(stored.body.toString('utf8')) as ExtractionResult;
    }),
  );
}

/** Everything a run keeps in the bucket (cleared when the job's read is over or restarted). */
export const runFilesPrefix = (job: JobPlace) => `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}pdf-runs/`;

/**
 * Counts `bytes` of photos taken out of a document against its budget
 * (MAX_EXTRACTED_BYTES); false, counting nothing, when they would go past it.
 * A unit run again counts its photos again: the budget errs on the safe side.
 */
export async function reserveExtractedBytes(
  jobId: string,
  runId: string,
  document: number,
  bytes: number,
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: `JOB#${jobId}`, sk: runRecordKey('PDFBYTES', runId, document) },
        UpdateExpression: 'ADD used :n SET entity = :entity',
        // The first reservation is checked too: a batch alone may not pass the limit.
        ConditionExpression: '(attribute_not_exists(used) AND :ceiling >= :zero) OR used <= :ceiling',
        ExpressionAttributeValues: {
          ':n': bytes,
          ':ceiling': MAX_EXTRACTED_BYTES - bytes,
          ':zero': 0,
          ':entity': 'PdfBytesUsed',
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}
