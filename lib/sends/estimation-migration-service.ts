/**
 * The one-time migration of estimation sends made before sends ran on the
 * engine (`npm run migrate:estimation-sends`, run once after the deploy; safe
 * to run again). A send then was finished by its request, the claim's next
 * send or a sweep of the watchdog that is no more; one still 'sending' or
 * 'delivered' would now wait for nothing, and keep the claim's next send
 * waiting. Each gets its run on the engine (estimation-run-service.ts),
 * opened in its one stage under a lease that ran out a while ago: the
 * watchdog then has a worker carry it on from its record under the same
 * charge reference, as it does for any request that died. A send whose old
 * lease still holds (a request of the old code still at work) is left for a
 * later run of the migration.
 */
import { randomUUID } from 'node:crypto';
import { getClaim } from '../claims/store';
import { settings } from '../config';
import { teamFeatures } from '../features/store';
import { logger } from '../observability/logger';
import { queuedStage } from '../orchestrator/transitions';
import { sendCredits } from './estimation-rules';
import { estimationSendPipeline } from './estimation-run-service';
import { openEstimationSendRows, openMigratedEstimationRun } from './estimation-store';

export interface EstimationMigrationReport {
  /** Sends of before the engine given their run. */
  resumed: number;
  /** Sends whose old lease still held: run the migration again once it has run out. */
  waiting: number;
}

/** The lease of a send taken over: long gone, so the watchdog's next tick finds the stage without a worker. */
const LONG_AGO_MS = 5 * 60_000;

export async function migrateEstimationSends(now = Date.now()): Promise<EstimationMigrationReport> {
  const report: EstimationMigrationReport = { resumed: 0, waiting: 0 };
  for await (const row of openEstimationSendRows()) {
    if (row.run_id || (row.state !== 'sending' && row.state !== 'delivered')) continue;
    if (Number(row.lease_until ?? 0) >= now) {
      report.waiting++;
      continue;
    }
    const claimId = String(row.claim_id);
    const at = new Date(now).toISOString();
    const opened = await openMigratedEstimationRun(
      claimId,
      {
        id: claimId,
        status: 'processing',
        planned_credits: await plannedCredits(row),
        pipeline: estimationSendPipeline.name,
        run_id: randomUUID(),
        current_stage: 'send',
        progress_pct: 0,
        ...queuedStage('send'),
        stage_state: 'running',
        stage_runner: 'before-the-engine',
        stage_lease_until: new Date(now - LONG_AGO_MS).toISOString(),
        heartbeat_at: new Date(now - LONG_AGO_MS).toISOString(),
        recovery_attempts: 0,
        stage_timings: {},
        started_at: at,
        created_at: String(row.updated_at ?? at),
        error: null,
      },
      now,
    );
    if (opened) report.resumed++;
  }
  logger.info('estimation send migration done', { ...report });
  return report;
}

/** What the batch costs: what it was charged when the charge was recorded, else what a send of it costs now. */
async function plannedCredits(row: Record<string, unknown>): Promise<number> {
  const credits = Number(row.credits ?? 0);
  if (credits > 0 || row.dry_run) return credits;
  const claim = await getClaim(String(row.claim_id), true);
  const features = await teamFeatures(String(row.team_id));
  return sendCredits({
    itemCount: Number(row.item_count ?? 0),
    creditsPerItem: settings().COST_PER_CONTENTS_ESTIMATION_ITEM,
    enterprise: features.enterprise,
    training: Boolean(claim?.is_training),
  });
}
