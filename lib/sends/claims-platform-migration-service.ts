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
 *  - Sends still processing. They have no stage, lease or sweep entry and
 *    would stay processing for ever, and with no open send a new click could
 *    charge the same items again. Each gets one row per item (counted ones as
 *    counted), the stage `sending` under a lease that has run out, and
 *    becomes its claim's open send: the send sweep hands it to the worker,
 *    which sends what is pending, and a click meanwhile answers it.
 */
import { logger } from '../observability/logger';
import {
  allSubmissions,
  leaseLegacySubmission,
  putSubmissionItemOnce,
  raiseClaimSendRounds,
  type StoredSubmission,
} from './submission-migration-store';

export interface SendMigrationReport {
  /** Claims whose charge rounds were recorded. */
  claims: number;
  /** Sends of the earlier shape still processing, handed to the send sweep. */
  resumed: number;
}

/** The batch size and round a charge key names (`as-send:<claim>:<n>` or `…:<n>:r<round>`). */
export function chargeKeyRound(chargeKey: string): { alreadySubmitted: string; round: number } | null {
  const match = /^as-send:[^:]+:(\d+)(?::r(\d+))?$/.exec(chargeKey);
  if (!match) return null;
  return { alreadySubmitted: match[1], round: match[2] ? Number(match[2]) : 1 };
}

const isLegacy = (s: StoredSubmission) => s.stage === undefined;

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
    for (const submission of open) if (await resumeLegacySend(submission, now)) report.resumed++;
  }
  logger.info('claims platform send migration done', { ...report });
  return report;
}

/** Item rows first, then the stage: the worker finds a row for every item once the send is on the sweep's index. */
async function resumeLegacySend(submission: StoredSubmission, now: number): Promise<boolean> {
  const counted = new Set(submission.counted_item_ids ?? []);
  const failed = new Set(submission.failed_item_ids ?? []);
  for (const itemId of submission.item_ids ?? []) {
    const state = failed.has(itemId) ? 'failed' : counted.has(itemId) ? 'done' : 'pending';
    await putSubmissionItemOnce(submission.id, itemId, state);
  }
  return leaseLegacySubmission(submission.id, now);
}
