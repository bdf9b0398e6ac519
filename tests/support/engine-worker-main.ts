/** Entry of the child-process engine worker (see startWorkerProcess in engine.ts). */
import { registerTestPipelines } from './test-pipelines';
import { startInProcessWorkers } from './engine';

registerTestPipelines();
startInProcessWorkers({ env: {}, queues: { stages: process.env.ENGINE_STAGES_QUEUE as string, units: process.env.ENGINE_UNITS_QUEUE as string } });
process.stdout.write('engine worker ready\n');
