/**
 * The one-time migration of homeowner submit rounds being made at the deploy
 * that put rounds on the engine (`npm run migrate:insured-rounds`, run once
 * after the deploy; safe to run again). A round of the earlier shape lived on
 * its link alone (a lease, a count of makings, the link on the open-submits
 * index swept by a watchdog part that is no more): nothing would make it now,
 * and the link would answer every submit with that round forever. Each such
 * link gets its round row with a run on the engine
 * (submit-round-run-service.ts), and leaves the old index and fields:
 *
 *  - no maker holds the old lease: the run's stage is queued and its message
 *    sent, so a stage worker makes the round (the maker's derived ids find
 *    what an earlier maker made, and make the rest);
 *  - a maker of the earlier release still holds it: the run is opened with
 *    the stage taken under that lease, so the watchdog restarts it on a
 *    worker once the lease has run out (a maker that finished meanwhile left
 *    the link's round over: the re-run finds everything made and ends the
 *    round row alone).
 */
import { logger } from '../observability/logger';
import { requestStageFields } from '../orchestrator/request-stage';
import { queuedStage, sendStage } from '../orchestrator/transitions';
import { submitProcessing } from './rules';
import { getInsuredLink, listLegacyOpenSubmitLinkIds } from './store';
import { insuredRoundPipeline, insuredRoundRunKind } from './submit-round-run-service';
import { openMigratedRound } from './submit-round-store';

/** The runner named by a round whose earlier maker still held its lease at the migration. */
const EARLIER_MAKER = 'before-the-engine';

export interface RoundMigrationReport {
  /** Links on the old open-submits index. */
  checked: number;
  /** Rounds given their run on the engine. */
  resumed: number;
}

/** The earlier shape's fields of a link, read at the migration only. */
interface LegacyLinkFields {
  submit_lease_until?: string | null;
  submit_handed_at?: string | null;
}

export async function migrateInsuredSubmitRounds(now = Date.now()): Promise<RoundMigrationReport> {
  const report: RoundMigrationReport = { checked: 0, resumed: 0 };
  const at = new Date(now);
  for (const id of await listLegacyOpenSubmitLinkIds()) {
    report.checked++;
    const link = await getInsuredLink(id);
    if (!link || !submitProcessing(link)) continue;
    const legacy = link as typeof link & LegacyLinkFields;
    const round = link.submit_round ?? 0;
    const leaseUntil = legacy.submit_lease_until ?? null;
    const held = leaseUntil !== null && Date.parse(leaseUntil) > now;
    const taken = requestStageFields(insuredRoundPipeline, EARLIER_MAKER, held ? Date.parse(leaseUntil) - now : 0, at);
    // Held: its last sign of life is its hand-on, so the watchdog restarts it once the lease has run out.
    const run = held
      ? { ...taken, heartbeat_at: legacy.submit_handed_at ?? link.submit_started_at ?? at.toISOString() }
      : { ...taken, ...queuedStage(insuredRoundPipeline.stages[0].name), stage_timings: {} };
    const summary = link.submit_summary ?? { photo_jobs: 0, photos: 0, media_jobs: 0, items: 0, pending_files: 0 };
    const opened = await openMigratedRound(link, round, summary, run, link.submit_started_at ?? at.toISOString());
    if (!opened) continue;
    if (!held) await sendStage(insuredRoundRunKind.name, opened);
    report.resumed++;
  }
  logger.info('homeowner submit round migration done', { ...report });
  return report;
}
