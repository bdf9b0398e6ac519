import '../../lib/pipelines'; // recovery restarts and fails jobs through their pipeline's declaration
import { loadSecrets } from '../../lib/config';
import { sweepStaleSubmitRounds } from '../../lib/insured/submit-service';
import { withSignalsFlushed } from '../../lib/observability/flush';
import { runWatchdog } from '../../lib/orchestrator/recovery';
import { sweepInterruptedEstimationSends } from '../../lib/sends/estimation-sweep-service';
import { sweepExpiredSends } from '../../lib/sends/submission-sweep-service';

export const handler = withSignalsFlushed(async () => {
  await loadSecrets();
  const report = await runWatchdog();
  const sends = await sweepExpiredSends();
  const estimationSends = await sweepInterruptedEstimationSends();
  return { ...report, sends, estimation_sends: estimationSends, insured_submits: await sweepStaleSubmitRounds() };
});
