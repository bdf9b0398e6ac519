/** Entry of the child-process engine worker (see startWorkerProcess in engine.ts). */
import { registerTestPipelines } from './test-pipelines';
import { startInProcessWorkers } from './engine';
import { db } from '../../lib/db/client';

registerTestPipelines();

/** SIGKILLs this process right after its n-th successful DynamoDB write that `counts` (n > 0). */
function killAfterWrites(n: number, name: string, counts: (input: string) => boolean): void {
  if (!(n > 0)) return;
  let counted = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      if (counts(JSON.stringify(args.input)) && ++counted >= n) process.kill(process.pid, 'SIGKILL');
      return result;
    },
    { step: 'initialize', name },
  );
}

// ENGINE_KILL_AFTER_FANIN=n: the process SIGKILLs itself right after its n-th
// fan-in count write succeeded, before it can dispatch or advance anything.
killAfterWrites(Number(process.env.ENGINE_KILL_AFTER_FANIN ?? 0), 'killAfterFanIn', (input) =>
  input.includes('":add_fanout_done"'),
);
// ENGINE_KILL_AFTER_PHOTO_ROWS=n: the same right after its n-th staged-photo insert (one transaction of up to
// 99 rows) succeeded, in the middle of the stage that writes them.
killAfterWrites(
  Number(process.env.ENGINE_KILL_AFTER_PHOTO_ROWS ?? 0),
  'killAfterPhotoRows',
  (input) => input.includes('"TransactItems"') && input.includes('PHOTO#'),
);

startInProcessWorkers({
  name: process.env.ENGINE_STAGE_NAME ?? 'engine',
  env: {},
  queues: { stages: process.env.ENGINE_STAGES_QUEUE as string, units: process.env.ENGINE_UNITS_QUEUE as string },
});
process.stdout.write('engine worker ready\n');
