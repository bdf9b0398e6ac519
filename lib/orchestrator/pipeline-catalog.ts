/**
 * The pipelines of this deployment by name, as the HTTP side starts them:
 * without their stage code (which loads sharp and the AI client), so the
 * process and read-the-rest handlers stay small. lib/pipelines/index.ts
 * registers the full declarations for the workers; a unit test keeps the two
 * in step.
 */
import type { SourceType } from '../jobs/job-rules';
import type { PipelineRef } from './pipeline';

const processing = { followUp: false, preparation: false };

export const PHOTO_PIPELINE: PipelineRef = {
  name: 'photo',
  sourceType: 'photo',
  firstStage: 'analyze',
  firstStatus: 'analyzing',
  ...processing,
};
export const PHOTO_READ_THE_REST: PipelineRef = {
  name: 'photo-read-the-rest',
  sourceType: 'photo',
  firstStage: 'reread',
  firstStatus: 'analyzing',
  followUp: true,
  preparation: false,
};

const VIDEO_PIPELINE: PipelineRef = {
  name: 'video',
  sourceType: 'video',
  firstStage: 'probe',
  firstStatus: 'extracting',
  ...processing,
};
const AUDIO_PIPELINE: PipelineRef = {
  name: 'audio',
  sourceType: 'audio',
  firstStage: 'transcribe',
  firstStatus: 'transcribing',
  ...processing,
};

/** Reads a photo job's contents lists (PDFs) into its grouping pile, in importing_pdf. */
export const PDF_IMPORT: PipelineRef = {
  name: 'pdf-import',
  sourceType: 'photo',
  firstStage: 'layout',
  firstStatus: 'importing_pdf',
  followUp: false,
  preparation: true,
};

/** Imports a capture source selection (ImportBatch) into new room and media jobs, in importing. */
export const CAPTURE_IMPORT: PipelineRef = {
  name: 'capture-import',
  sourceType: 'photo',
  firstStage: 'expand',
  firstStatus: 'importing',
  followUp: false,
  preparation: true,
};

export const PIPELINE_CATALOG: readonly PipelineRef[] = [
  CAPTURE_IMPORT,
  PHOTO_PIPELINE,
  PDF_IMPORT,
  PHOTO_READ_THE_REST,
  VIDEO_PIPELINE,
  AUDIO_PIPELINE,
];

/** The pipeline that processes a job of this source type, when this deployment has one. */
export function pipelineRefForSource(sourceType: SourceType): PipelineRef | undefined {
  return PIPELINE_CATALOG.find((p) => p.sourceType === sourceType && !p.followUp && !p.preparation);
}
