/**
 * The PDF import (contents lists into a photo job's grouping pile), a
 * preparing pipeline: every stage runs in importing_pdf, and the job moves
 * on to awaiting_grouping when the read ends, read or not (the engine's
 * preparing runs: lib/orchestrator/terminal.ts).
 *
 *   layout    open each document, cut its pages into units; each unit reads
 *             its pages' text and image placements
 *   extract   first the plan, per document: inventory page range, layout
 *             fingerprint, recipe (stored template, else one AI call), the
 *             recipe applied, the photos numbered; then one unit per run of
 *             photos takes them out (stored JPEG bytes, or rendered pages
 *             marked by the AI) into photos/pdf_####.jpg
 *   group     staged photos grouped as the documents file them; outcomes
 *             on the job; poor reads reported to support
 */
import { deletePrefix } from '../../blob/client';
import { blobKeys } from '../../blob/keys';
import type { PipelineDefinition } from '../../orchestrator/pipeline';
import { confirmDocumentUploads } from '../../photos/document-upload-service';
import { listStagedPhotos, removeStagedPhotos } from '../../photos/staged-photo-store';
import { extractUnit } from './extract-stage';
import { groupPhotos } from './group-stage';
import { planLayouts, readLayoutUnit } from './layout-stage';
import { planExtraction } from './plan-stage';
import { runFilesPrefix } from './run-store';

export const pdfImportPipeline: PipelineDefinition = {
  name: 'pdf-import',
  sourceType: 'photo',
  preparation: true,
  // Files never confirmed: each is looked for in the bucket, then the read starts with what arrived.
  async uploadsExpired(job) {
    const waiting = (job.pdf_documents ?? []).filter((d) => d.state === 'awaiting_upload');
    await confirmDocumentUploads(
      job,
      waiting.map((d) => d.document),
    );
  },
  stages: [
    { name: 'layout', status: 'importing_pdf', progress: [0, 30], run: planLayouts, unit: readLayoutUnit },
    { name: 'extract', status: 'importing_pdf', progress: [30, 95], run: planExtraction, unit: extractUnit },
    { name: 'group', status: 'importing_pdf', progress: [95, 100], run: groupPhotos },
  ],
  async complete({ job }) {
    // The run's working files (page layouts, the extraction plan) are not needed past the read;
    // nor are a claim-level reader's photos, once copied to the room jobs.
    await deletePrefix(runFilesPrefix(job));
    if (job.reads_batch_id) await deletePrefix(`${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}photos/`);
    const photos = (job.pdf_documents ?? []).reduce((n, d) => n + d.photos, 0);
    return { items_found: photos, credits: 0, blocks: 0, minutes: 0 };
  },
  // A restarted run numbers its photos afresh: what the interrupted one wrote goes, and its bytes leave the
  // job's file size with it.
  async clearPartialResults(job) {
    const written = (await listStagedPhotos(job.id)).filter((p) => p.filename.startsWith('pdf_'));
    await removeStagedPhotos(
      job.id,
      written.map((p) => p.index),
    );
    await deletePrefix(`${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}photos/pdf_`);
    await deletePrefix(runFilesPrefix(job));
  },
};
