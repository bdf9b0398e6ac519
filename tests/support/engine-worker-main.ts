/** Entry of the child-process engine worker (see startWorkerProcess in engine.ts). */
import { registerTestPipelines } from './test-pipelines';
import { startInProcessWorkers } from './engine';
import { db } from '../../lib/db/client';

registerTestPipelines();

// ENGINE_KILL_AFTER_FANIN=n: the process SIGKILLs itself right after its n-th
// fan-in count write succeeded, before it can dispatch or advance anything.
const killAfter = Number(process.env.ENGINE_KILL_AFTER_FANIN ?? 0);
if (killAfter > 0) {
  let counted = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      if (JSON.stringify(args.input).includes('":add_fanout_done"') && ++counted >= killAfter)
        process.kill(process.pid, 'SIGKILL');
      return result;
    },
    { step: 'initialize', name: 'killAfterFanIn' },
  );
}

startInProcessWorkers({
  name: process.env.ENGINE_STAGE_NAME ?? 'engine',
  env: {},
  queues: { stages: process.env.ENGINE_STAGES_QUEUE as string, units: process.env.ENGINE_UNITS_QUEUE as string },
});
process.stdout.write('engine worker ready\n');
