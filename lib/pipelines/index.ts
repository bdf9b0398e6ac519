/**
 * The pipelines this deployment runs, registered with the orchestrator.
 * Everything that runs them (the stage and unit workers, the watchdog)
 * imports this module; HTTP handlers start jobs from lib/orchestrator/pipeline-catalog.ts
 * instead.
 */
import { registerPipeline } from '../orchestrator/pipeline';
import '../sends/claims-platform-run-service'; // a claims platform send's run: its kind and pipeline register themselves
import '../sends/estimation-run-service'; // an estimation platform send's run, the same way
import '../insured/submit-round-registration-service'; // a homeowner submit round's run: its kind and pipeline
import './run-end-subscribers'; // what hears a run's end, in every function that runs jobs
import { audioPipeline } from './audio/pipeline';
import { captureImportPipeline } from './capture/pipeline';
import { pdfImportPipeline } from './pdf/pipeline';
import { photoPipeline } from './photo/pipeline';
import { readTheRestPipeline } from './photo-read-the-rest/pipeline';
import { videoPipeline } from './video/pipeline';

export const PIPELINES = [
  photoPipeline,
  readTheRestPipeline,
  videoPipeline,
  audioPipeline,
  pdfImportPipeline,
  captureImportPipeline,
];
for (const pipeline of PIPELINES) registerPipeline(pipeline);
