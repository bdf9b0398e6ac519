/**
 * The capture import (media selected on a capture source connection, into
 * a claim), a preparing pipeline run by the batch's runner: a job of the
 * claim in no room, never listed, that works in `importing` and ends
 * complete (lib/orchestrator/terminal.ts). Nothing is charged: imported
 * media is priced when the adjuster confirms its jobs.
 *
 *   expand    the manifest against the capture source: selection, skips,
 *             rooms, jobs, photo numbers and groups; then one unit per
 *             signing batch: URLs signed, downloaded with bounded
 *             concurrency into the bucket (photos as upright JPEGs)
 *   finish    room photo jobs (awaiting_grouping) and media jobs
 *             (awaiting_confirmation) made; the batch's counters and status
 */
import type { PipelineDefinition } from '../../orchestrator/pipeline';
import { downloadUnit } from './download-unit';
import { expandManifest } from './expand-stage';
import { handOverImport } from './finish-stage';

export const captureImportPipeline: PipelineDefinition = {
  name: 'capture-import',
  sourceType: 'photo',
  preparation: true,
  stages: [
    // The expand stage's units are the downloads: one per signing batch.
    { name: 'expand', status: 'importing', progress: [0, 95], run: expandManifest, unit: downloadUnit },
    { name: 'finish', status: 'importing', progress: [95, 100], run: handOverImport },
  ],
  async complete({ job }) {
    return { items_found: job.items_found ?? 0, credits: 0, blocks: 0, minutes: 0 };
  },
  // A restarted run plans again under its new run id: nothing of the interrupted one is read.
  async clearPartialResults() {},
};
