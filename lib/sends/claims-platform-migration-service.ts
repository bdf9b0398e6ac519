/**
 * The one-time migration of claims platform sends made before sends were
 * leased state machines (`npm run migrate:claims-platform-sends`, run once
 * after the deploy; safe to run again):
 *
 *  - A claim's charge rounds. Earlier sends kept no open-send row: a claim
 *    without one would start its rounds at 1 again and could reuse the
 *    reference of a send that was refunded (the billing service answers a
 *    repeated reference with its first, refunded spend: the send would go out
 *    free). Each claim's row gets, per batch size, the highest round its
 *    sends used, so its next send takes a new reference.
 *  - Sends still processing, of either earlier shape (no stage at all, or a
 *    leased stage of the send sweep that is no more). Nothing would move them
 *    on, and with no open send a new click could charge the same items
 *    again. A send of the first shape gets one row per item (counted ones as
 *    counted) and becomes its claim's open send. Each then gets its run on
 *    the engine (claims-platform-run-service.ts): one whose items were being
 *    handed over, or had been, resumes at its `items` stage, whose units
 *    send what is pending (a click meanwhile answers it); one whose request
 *    was still charging or syncing is opened in the request's stage under a
 *    lease that has run out, so the watchdog fails it and gives its charge
 *    back, as it does for any request that died.
 */
import { randomUUID } from 'node:crypto';
import { logger } from '../observability/logger';
import { queuedStage, sendStage } from '../orchestrator/transitions';
import { claimsPlatformSendPipeline, claimsSendRunKind } from './claims-platform-run-service';
import {
  allSubmissions,
  openMigratedRun,
  putSubmissionItemOnce,
  raiseClaimSendRounds,
  type StoredSubmission,
} from './submission-migration-store';
import type { Submission } from './submission-record-rules';

export interface SendMigrationReport {
  /** Claims whose charge rounds were recorded. */
  claims: number;
  /** Sends of an earlier shape still processing, given their run on the engine. */
  resumed: number;
}

/** The batch size and round a charge key names (`as-send:<claim>:<n>` or `…:<n>:r<round>`). */
export function chargeKeyRound(chargeKey: string): { alreadySubmitted: string; round: number } | null {
  const match = /^as-send:[^:]+:(\d+)(?::r(\d+))?$/.exec(chargeKey);
  if (!match) return null;
  return { alreadySubmitted: match[1], round: match[2] ? Number(match[2]) : 1 };
}

const isLegacy = (s: StoredSubmission) => s.stage === undefined && !s.run_id;
const needsRun = (s: StoredSubmission) => s.status === 'processing' && !s.run_id;

export async function migrateClaimsPlatformSends(now = Date.now()): Promise<SendMigrationReport> {
  const byClaim = new Map<string, StoredSubmission[]>();
  for await (const submission of allSubmissions()) {
    const list = byClaim.get(submission.claim_id) ?? [];
    list.push(submission);
    byClaim.set(submission.claim_id, list);
  }
  const report: SendMigrationReport = { claims: 0, resumed: 0 };
  for (const [claimId, submissions] of byClaim) {
    const rounds: Record<string, number> = {};
    for (const { charge_key } of submissions) {
      const used = chargeKeyRound(charge_key);
      if (used) rounds[used.alreadySubmitted] = Math.max(rounds[used.alreadySubmitted] ?? 0, used.round);
    }
    const open = submissions
      .filter((s) => isLegacy(s) && s.status === 'processing')
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    await raiseClaimSendRounds(claimId, rounds, open[0]?.id ?? null);
    report.claims++;
    for (const submission of submissions.filter(needsRun)) if (await resumeOnEngine(submission, now)) report.resumed++;
  }
  logger.info('claims platform send migration done', { ...report });
  return report;
}

/** Item rows first (a send of the first shape), then its run: the `items` stage queued, or its request's stage expired. */
async function resumeOnEngine(submission: StoredSubmission, now: number): Promise<boolean> {
  if (isLegacy(submission)) {
    const counted = new Set(submission.counted_item_ids ?? []);
    const failed = new Set(submission.failed_item_ids ?? []);
    for (const itemId of submission.item_ids ?? []) {
      const state = failed.has(itemId) ? 'failed' : counted.has(itemId) ? 'done' : 'pending';
      await putSubmissionItemOnce(submission.id, itemId, state);
    }
  }
  const at = new Date(now).toISOString();
  const requestDied = submission.stage === 'charging' || submission.stage === 'syncing';
  const stage = requestDied ? 'request' : 'items';
  const run = {
    pipeline: claimsPlatformSendPipeline.name,
    run_id: randomUUID(),
    current_stage: stage,
    progress_pct: 0,
    ...queuedStage(stage),
    // A request that died: its stage taken under a lease that ran out a while ago, with no heartbeat since.
    ...(requestDied ? { stage_state: 'running', stage_runner: 'before-the-engine', stage_lease_until: at } : {}),
    request_step: requestDied ? submission.stage : null,
    heartbeat_at: requestDied ? new Date(now - 5 * 60_000).toISOString() : at,
    recovery_attempts: 0,
    stage_timings: {},
    started_at: submission.created_at,
  };
  const opened = await openMigratedRun(submission.id, run);
  if (!opened) return false;
  if (!requestDied) await sendStage(claimsSendRunKind.name, opened as unknown as Submission);
  return true;
}
