/**
 * The pipelines this deployment runs, registered with the orchestrator.
 * Everything that starts or runs jobs (the process and read-the-rest
 * endpoints, the stage and unit workers) imports this module; the video and
 * audio pipelines join here when they exist.
 */
import { pipelineForSource, registerPipeline } from '../orchestrator/pipeline';
import { photoPipeline, readTheRestPipeline } from './photo/pipeline';

for (const pipeline of [photoPipeline, readTheRestPipeline]) registerPipeline(pipeline);

export { pipelineForSource, photoPipeline, readTheRestPipeline };
