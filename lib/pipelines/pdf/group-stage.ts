/**
 * The PDF import's last stage, `group`: the photos the extraction units
 * wrote become staged photos in the job's grouping pile, grouped the way the
 * documents file them (group/grouping-rules.ts), with their captions, item
 * keys and rooms; each document's outcome is recorded on the job, and a poor read
 * is reported to support. The engine then hands the job on to
 * awaiting_grouping.
 */
import { settings } from '../../config';
import type { Job, PdfDocument } from '../../jobs/job-record-rules';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { pdfFilename } from '../../photos/rules';
import { getStagedPhotos, insertStagedPhotos, newStagedPhoto } from '../../photos/staged-photo-store';
import type { StagedPhoto } from '../../photos/staged-photo-record-rules';
import { plural } from '../../text';
import { assessExtraction, leftOutPhotos } from './report/assessment-rules';
import { pdfPhotoKey } from './extract-stage';
import { reportPoorRead } from './report/failure-report';
import { groupFindings } from './group/grouping-rules';
import { inRuns } from './limit-rules';
import { handToRoomJobs } from './split/room-split';
import { type ExtractedPhoto, getExtractionPlan, getReadPlan, listExtractionResults } from './run-store';

/** Rows per transaction (with the job's byte counter: DynamoDB takes 100 items). */
const ROWS_PER_WRITE = 99;

const photoLabel = (doc: PdfDocument, page: number) => `${doc.original_filename}, page ${page}`;

/** Writes the rows; rows a restarted stage wrote already are kept as they are. */
async function insertRows(job: Job, rows: StagedPhoto[]): Promise<void> {
  for (const run of inRuns(rows, ROWS_PER_WRITE)) {
    const outcome = await insertStagedPhotos(job.id, run, ['importing_pdf']);
    if (outcome === 'inserted') continue;
    if (outcome === 'job-state') throw new Error('the job left importing_pdf while its photos were being saved');
    const existing = await getStagedPhotos(
      job.id,
      run.map((r) => r.index),
    );
    const missing = run.filter((r) => !existing.has(r.index));
    for (const row of missing) {
      const again = await insertStagedPhotos(job.id, [row], ['importing_pdf']);
      if (again === 'job-state') throw new Error('the job left importing_pdf while its photos were being saved');
    }
  }
}

export async function groupPhotos(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const runId = job.run_id as string;
  const readPlan = await getReadPlan(job.id, runId);
  const plan = readPlan.units.length > 0 ? await getExtractionPlan(job, runId).catch(() => null) : null;
  const results = plan ? await listExtractionResults(job, runId, plan.units.length) : [];
  const photos = results.flatMap((r) => r.photos).sort((a, b) => a.index - b.index);
  let nextGroup = photos.length > 0 ? photos[0].index : 0;

  const rows: StagedPhoto[] = [];
  const documents: PdfDocument[] = [];
  for (const doc of job.pdf_documents ?? []) {
    if (doc.state !== 'queued') {
      documents.push(doc);
      continue;
    }
    const read = readPlan.documents.find((d) => d.document === doc.document);
    const reading = plan?.readings.find((r) => r.document === doc.document);
    const own = photos.filter((p) => p.document === doc.document);
    const unitResults = results.filter((r) => plan?.units[r.unit]?.document === doc.document);
    const grouped = groupFindings(
      own.map((p) => p.finding),
      { maxPerItem: settings().MAX_PHOTOS_PER_ITEM, firstGroupIndex: nextGroup },
    );
    nextGroup = grouped.reduce((n, g) => Math.max(n, g.groupIndex + 1), nextGroup);
    rows.push(...own.map((photo, i) => rowOf(job, doc, photo, grouped[i])));

    const skipped = unitResults.flatMap((r) => r.skipped ?? []);
    // What the user is told besides the photos: limits reached, photos left out as damaged.
    const notes = [read?.limit, reading?.limit, ...unitResults.map((r) => r.limit), leftOutPhotos(skipped)].filter(
      (l): l is string => Boolean(l),
    );
    const failure = read?.failure ?? plan?.failures?.find((f) => f.document === doc.document)?.failure ?? null;
    documents.push({
      ...doc,
      state: failure ? 'failed' : 'read',
      pages: read?.pages ?? null,
      photos: own.length,
      message: failure ?? ([...new Set(notes)].join(' ') || (own.length === 0 ? 'No photos were found in it.' : null)),
    });
    await log.info(
      failure
        ? `${doc.original_filename}: not read (${failure})`
        : `${doc.original_filename}: ${plural(own.length, 'photo')} in ${plural(new Set(grouped.map((g) => g.groupIndex)).size, 'group')}`,
    );
    const assessment = assessExtraction({
      ...(failure ? { error: failure } : {}),
      photos: own.length,
      pagesRead: read?.pages ?? 0,
      wholePageImages: unitResults.reduce((n, r) => n + r.whole_pages, 0),
      hasTextLayer: reading?.has_text_layer ?? false,
      unlabeledPhotos: own.filter((p) => !p.finding.label && !p.finding.description).length,
      skipped,
    });
    if (assessment)
      await reportPoorRead(
        job,
        doc,
        assessment.reason,
        [
          `Recipe: ${reading?.strategy_used ?? 'none'} (${reading?.recipe_source ?? 'no recipe'})`,
          `Inventory pages: ${reading?.first_page ?? '?'}–${reading?.last_page ?? '?'} of ${read?.pages ?? '?'}`,
        ],
        log,
      );
  }
  if (job.reads_batch_id) {
    const filenames = new Map((job.pdf_documents ?? []).map((d) => [d.document, d.original_filename] as const));
    const documentOf = new Map(photos.map((p) => [p.index, filenames.get(p.document) ?? '']));
    await handToRoomJobs(job, rows, (row) => documentOf.get(row.index) ?? '', documents, log);
  } else await insertRows(job, rows);
  return { kind: 'next', set: { pdf_documents: documents } };
}

function rowOf(
  job: Job,
  doc: PdfDocument,
  photo: ExtractedPhoto,
  grouped: ReturnType<typeof groupFindings>[number],
): StagedPhoto {
  const key = pdfPhotoKey(job, photo.index);
  return {
    ...newStagedPhoto({
      jobId: job.id,
      index: photo.index,
      filename: pdfFilename(photo.index),
      key,
      incomingKey: key,
      originalFilename: photoLabel(doc, photo.finding.page),
      capturedAt: photo.finding.capturedAt,
      sizeBytes: photo.size_bytes,
    }),
    group_index: grouped.groupIndex,
    quantity: photo.finding.quantity,
    // Taken out as JPEG (or rendered to one): nothing to re-encode.
    normalized: true,
    width: photo.width || null,
    height: photo.height || null,
    source_description: grouped.sourceDescription,
    source_item_key: grouped.sourceItemKey,
    source_label: grouped.sourceLabel,
    source_room: grouped.sourceRoom,
  };
}
