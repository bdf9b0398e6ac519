/**
 * Registers the homeowner submit round's run kind and pipeline
 * (submit-round-run-service.ts) with the engine, for the functions that run
 * and watch runs: the stage and unit workers and the watchdog load it through
 * lib/pipelines/index.ts. The submit request does not: it runs the round's
 * stage with the kind itself.
 */
import { registerPipeline } from '../orchestrator/pipeline';
import { registerRunKind } from '../orchestrator/run-kinds';
import { insuredRoundPipeline, insuredRoundRunKind } from './submit-round-run-service';

registerRunKind(insuredRoundRunKind);
registerPipeline(insuredRoundPipeline);
