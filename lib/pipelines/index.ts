/**
 * The pipelines this deployment runs, registered with the orchestrator.
 * Everything that runs jobs (the stage and unit workers, the watchdog)
 * imports this module; HTTP handlers start jobs from lib/pipelines/catalog.ts
 * instead. The video and audio pipelines join both when they exist.
 */
import { registerPipeline } from '../orchestrator/pipeline';
import { photoPipeline } from './photo/pipeline';
import { readTheRestPipeline } from './photo-read-the-rest/pipeline';

export const PIPELINES = [photoPipeline, readTheRestPipeline];
for (const pipeline of PIPELINES) registerPipeline(pipeline);
