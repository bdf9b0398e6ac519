/**
 * The homeowner's submit (spec: Insured link, public: submit; Limits:
 * insured-link media is charged at the adjuster's confirm): hands the draft
 * to the adjuster, spending nothing and starting no AI. Making the round's
 * jobs is lib/insured/submit-round-service.ts, run as the round's run on the
 * engine (submit-round-run-service.ts); this module starts the round and
 * decides who makes it.
 *
 * The submit counts what is ready and not yet submitted, then starts the
 * next round and its run in one transaction (one round at a time: a second
 * submit meanwhile answers the running round). A round of up to
 * INLINE_ROUND_ROWS rows is made in the request, the run opened with its
 * stage taken under the request's lease (lib/orchestrator/request-stage.ts),
 * so the homeowner sees it submitted at once; a larger one (a link at its
 * ceilings holds 7,000 rows, more writes than fit in API Gateway's 29 s) is
 * queued for a stage worker and answered with `processing: true`. A request
 * whose making fails hands the round to a worker (counted as the run's one
 * recovery); a request that died is found by the watchdog once its lease has
 * run out, like any maker that died. A round that keeps failing is ended by
 * the engine, its rows that reached no job back in the draft
 * (submit-round-run-service.ts).
 */
import { randomUUID } from 'node:crypto';
import { endsInvocation } from '../faults/fault-points';
import { logger } from '../observability/logger';
import { finishRequestStage, requestStageFields } from '../orchestrator/request-stage';
import { queuedStage, sendStage } from '../orchestrator/transitions';
import { openLink, type PublicCaller } from './access-service';
import { awaitingSubmit, stillUploading } from './draft-rules';
import type { DraftFile, DraftItem } from './draft-record-rules';
import { getInsuredLink } from './store';
import type { InsuredLink, SubmitRoundSummary } from './link-record-rules';
import { insuredRoundPipeline, insuredRoundRunKind } from './submit-round-run-service';
import { listDraft, submitRoundRows } from './submit-round-service';
import { type InsuredRound, type RoundRun, startSubmitRound } from './submit-round-store';

/** Rows a round may take and still be made inside the submit request (a second or two on the local stack). */
export const INLINE_ROUND_ROWS = 300;
/** The lease of a round made in the request: longer than the API's 29 s, so a request that died frees it soon. */
const INLINE_LEASE_MS = 60_000;

/** What a round will take, counted on the draft: the rows the maker will mark, unless edited meanwhile. */
function countRound(files: DraftFile[], items: DraftItem[]): SubmitRoundSummary & { rows: number } {
  const roomFiles = awaitingSubmit(files.filter((f) => f.room_id));
  const photos = roomFiles.filter((f) => f.kind === 'photo');
  const freshItems = new Set(items.filter((i) => i.round === null).map((i) => i.id));
  const rowPhotos = awaitingSubmit(files.filter((f) => f.item_id && freshItems.has(f.item_id)));
  return {
    photo_jobs: new Set(photos.map((f) => f.room_id)).size,
    photos: photos.length,
    media_jobs: roomFiles.length - photos.length,
    items: freshItems.size,
    pending_files: stillUploading(files).length,
    rows: roomFiles.length + freshItems.size + rowPhotos.length,
  };
}

function roundAnswer(round: number, at: string, summary: SubmitRoundSummary, processing: boolean) {
  const { photo_jobs, photos, media_jobs, items, pending_files } = summary;
  return {
    submitted_at: at,
    round,
    nothing_new: false,
    processing,
    photo_jobs,
    photos,
    media_jobs,
    items,
    pending_files,
  };
}

/** The answer to a submit while a round is being made: that round (the engine sees to its maker). */
function answerRunningRound(link: InsuredLink, now: Date) {
  const round = link.submit_round ?? 0;
  const summary = link.submit_summary ?? { photo_jobs: 0, photos: 0, media_jobs: 0, items: 0, pending_files: 0 };
  return roundAnswer(round, link.submit_started_at ?? now.toISOString(), summary, true);
}

/** The run a round is opened with: its stage taken by this request (`runner`), or queued for a stage worker. */
function roundRun(runner: string | null, now: Date): RoundRun {
  const taken = requestStageFields(insuredRoundPipeline, runner ?? 'none', INLINE_LEASE_MS, now);
  if (runner) return taken;
  return { ...taken, ...queuedStage(insuredRoundPipeline.stages[0].name), stage_timings: {} };
}

/**
 * Makes the round in the request, under the stage it opened the run with:
 * what it made, or null when the making failed and the round was handed to
 * a stage worker (counted as the run's recovery, so the worker's failure
 * ends the round), or the run had moved on. A crash hands nothing on: the
 * request's lease runs out and the watchdog restarts the stage.
 */
async function makeInRequest(round: InsuredRound, runner: string) {
  try {
    const made = await submitRoundRows(round.link_id, round.round);
    const finished = await finishRequestStage(insuredRoundRunKind, round, insuredRoundPipeline, {
      runner,
      set: { made },
    });
    return finished ? made : null;
  } catch (err) {
    if (endsInvocation(err)) throw err;
    logger.warn('homeowner submit round failed in the request; handed to a worker', {
      link_id: round.link_id,
      round: round.round,
      error: err instanceof Error ? err.message : String(err),
    });
    const handed = await insuredRoundRunKind.update(round.id, {
      set: {
        ...queuedStage(round.stage_name as string),
        current_stage: 'Handed to a worker',
        heartbeat_at: new Date().toISOString(),
      },
      add: { recovery_attempts: 1 },
      condition: 'run_id = :run AND stage_state = :running AND stage_runner = :runner',
      values: { ':run': round.run_id, ':running': 'running', ':runner': runner },
    });
    if (handed) await sendStage(insuredRoundRunKind.name, handed);
    return null;
  }
}

/** POST .../{token}/submit. */
export async function submitInsuredDraft(token: string, caller: PublicCaller = {}) {
  const opened = await openLink(token, 'write', caller);
  const now = new Date();
  const link = (await getInsuredLink(opened.id)) ?? opened;
  const previous = link.submit_round ?? 0;
  if ((link.submitted_round ?? 0) < previous) return answerRunningRound(link, now);

  const { rows, ...summary } = countRound(...(await listDraft(link.id)));
  if (rows === 0) {
    return {
      submitted_at: link.submitted_at ?? now.toISOString(),
      round: link.submitted_round ?? 0,
      nothing_new: true,
      processing: false,
      photo_jobs: 0,
      photos: 0,
      media_jobs: 0,
      items: 0,
      pending_files: summary.pending_files,
    };
  }
  // A small round is made here, under the stage this request takes; a large one by a stage worker.
  const runner = rows <= INLINE_ROUND_ROWS ? randomUUID() : null;
  const started = await startSubmitRound(link, previous, summary, roundRun(runner, now), now);
  if (!started) {
    // Another submit started a round first: answer that one.
    const current = await getInsuredLink(link.id);
    return answerRunningRound(current ?? link, now);
  }
  if (runner) {
    const made = await makeInRequest(started, runner);
    if (made) return roundAnswer(started.round, made.submitted_at, made, false);
  } else await sendStage(insuredRoundRunKind.name, started);
  return roundAnswer(started.round, now.toISOString(), summary, true);
}
