/** GET /api/dashboard/metrics: the team's cataloging throughput. */
import type { Identity } from '../auth/identity-rules';
import { type DashboardMetrics, dashboardMetrics, isSettled, type MeasuredJob } from './rules';
import { countLiveJobItems, listTeamJobSpans } from './store';

/** Item counts read at once (one COUNT query per settled job). */
const COUNTS_IN_FLIGHT = 16;

export async function getDashboardMetrics(identity: Identity): Promise<DashboardMetrics> {
  // Running jobs are left out before any item is counted.
  const jobs = (await listTeamJobSpans(identity.team.id)).filter((job) => isSettled(job.status));
  const measured: MeasuredJob[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(COUNTS_IN_FLIGHT, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        measured[i] = { ...jobs[i], items: await countLiveJobItems(jobs[i].id) };
      }
    }),
  );
  return dashboardMetrics(measured);
}
