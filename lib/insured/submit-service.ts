/**
 * The homeowner's submit (spec: Insured link, public: submit; Limits:
 * insured-link media is charged at the adjuster's confirm): hands the draft
 * to the adjuster, spending nothing and starting no AI. Making the round's
 * jobs is lib/insured/submit-round-service.ts; this module decides when and
 * by whom.
 *
 * The submit counts what is ready and not yet submitted, then starts the
 * next round with a conditional write on the link (one round at a time: a
 * second submit meanwhile answers the running round). A round of up to
 * INLINE_ROUND_ROWS rows is made in the request, so the homeowner sees it
 * submitted at once; a larger one (a link at its ceilings holds 7,000 rows,
 * more writes than fit in API Gateway's 29 s) is handed to the insured worker
 * and answered with `processing: true`. A round whose maker was lost (the
 * request died after starting it, or its message was dead-lettered) is handed
 * to the worker again by the next submit or by the watchdog, once it has been
 * INSURED_ROUND_STALE_SECONDS with its last maker and no maker holds it.
 *
 * Each making is counted on the link in the write that hands the round on. A
 * round that always fails (a row it cannot make) is not handed on forever:
 * after INSURED_ROUND_MAX_ATTEMPTS makings the watchdog gives it up. The spec
 * gives a submit no failed state to show, so the link is left as the
 * homeowner can use it: what reached a made job stays submitted, the rest is
 * back in the draft (editable, not submitted), nothing is being handed over,
 * and the next submit starts a new round. The failure is logged at error and
 * reported to error tracking.
 */
import { functionTimeoutSeconds } from '../background/functions';
import { settings as currentSettings } from '../config';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { dispatch } from '../queue/dispatch';
import { openLink, type PublicCaller } from './access-service';
import { awaitingSubmit, stillUploading } from './draft-rules';
import type { DraftFile, DraftItem } from './draft-store';
import type { InsuredRoundMessage } from './draft-schemas';
import { roundHandOnWaitMs, submitProcessing } from './rules';
import { completeSubmitRound, failSubmitRound, listDraft } from './submit-round-service';
import { countSubmitAttempt } from './submit-round-store';
import {
  getInsuredLink,
  type InsuredLink,
  listStaleSubmitLinkIds,
  startSubmitRound,
  type SubmitRoundSummary,
} from './store';

/** Rows a round may take and still be made inside the submit request (a second or two on the local stack). */
export const INLINE_ROUND_ROWS = 300;
/** The lease of a round made in the request: longer than the API's 29 s, so a request that died frees it soon. */
const INLINE_LEASE_MS = 60_000;
/** The lease of a round made by the worker: longer than the worker may run. */
const WORKER_LEASE_MS = (functionTimeoutSeconds('insuredWorker') + 30) * 1000;
/** The lease the watchdog holds while it gives a round up (its rows go back to the draft): longer than it may run. */
const GIVE_UP_LEASE_MS = (functionTimeoutSeconds('watchdog') + 30) * 1000;

/** A round handed to a maker this long ago and not made has lost its maker, or soon will: it is handed on again. */
export const staleRoundMs = () => currentSettings().INSURED_ROUND_STALE_SECONDS * 1000;

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

/** Hands a started round to the insured worker (a duplicate message finds it made, or waits for its maker). */
async function queueSubmitRound(linkId: string, round: number): Promise<void> {
  const message: InsuredRoundMessage = { link_id: linkId, round };
  await dispatch('insured', message);
}

/**
 * Hands an open round to the worker again, counting the making on the link
 * first: false (nothing queued) when a maker holds it, it is over, or its
 * makings are spent (the watchdog then gives it up).
 */
async function handOnSubmitRound(linkId: string, round: number, now: Date): Promise<boolean> {
  const max = currentSettings().INSURED_ROUND_MAX_ATTEMPTS;
  // Leases are written with the real clock; `now` (the sweep's) stamps the hand-on.
  if (!(await countSubmitAttempt(linkId, round, max, now, new Date()))) return false;
  await queueSubmitRound(linkId, round);
  return true;
}

/** The answer to a submit while a round is being made: that round; handed on again when its maker looks lost. */
async function answerRunningRound(link: InsuredLink, now: Date) {
  const round = link.submit_round ?? 0;
  const startedAt = link.submit_started_at ?? null;
  const handedAt = link.submit_handed_at ?? startedAt;
  if (!handedAt || now.getTime() - Date.parse(handedAt) > staleRoundMs()) await handOnSubmitRound(link.id, round, now);
  const summary = link.submit_summary ?? { photo_jobs: 0, photos: 0, media_jobs: 0, items: 0, pending_files: 0 };
  return roundAnswer(round, startedAt ?? now.toISOString(), summary, true);
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
  if (!(await startSubmitRound(link.id, previous, summary, now))) {
    // Another submit started a round first: answer that one.
    const current = await getInsuredLink(link.id);
    return answerRunningRound(current ?? link, now);
  }
  const round = previous + 1;
  if (rows <= INLINE_ROUND_ROWS) {
    const made = await completeSubmitRound(link.id, round, INLINE_LEASE_MS);
    if (typeof made === 'object') return roundAnswer(round, made.submitted_at, made, false);
  }
  await queueSubmitRound(link.id, round);
  return roundAnswer(round, now.toISOString(), summary, true);
}

/** The insured worker's message: make this round (lib/insured/draft-schemas.ts insuredRoundMessage). */
export async function handleInsuredRoundMessage(message: InsuredRoundMessage): Promise<void> {
  const made = await completeSubmitRound(message.link_id, message.round, WORKER_LEASE_MS);
  // Another maker holds the round: fail this delivery, so the queue brings it back once that one is done or gone.
  if (made === 'busy') throw new Error(`submit round ${message.round} of link ${message.link_id} is being made`);
}

/** What the watchdog's part did: open rounds it looked at, handed on, and gave up. */
export interface SubmitSweepReport {
  checked: number;
  handed_on: number;
  given_up: number;
}

/**
 * The watchdog's part: a round handed to a maker over a stale period ago and
 * not made goes to the worker again, counted; one whose makings are spent is
 * given up (see the header). One link's failure does not stop the others.
 */
export async function sweepStaleSubmitRounds(now = new Date()): Promise<SubmitSweepReport> {
  const report: SubmitSweepReport = { checked: 0, handed_on: 0, given_up: 0 };
  const ids = await listStaleSubmitLinkIds(new Date(now.getTime() - staleRoundMs()).toISOString());
  for (const id of ids) {
    const link = await getInsuredLink(id);
    if (!link || !submitProcessing(link)) continue;
    report.checked++;
    const round = link.submit_round ?? 0;
    const context = { link_id: id, round, attempts: link.submit_attempts ?? 0 };
    const handedAt = Date.parse(link.submit_handed_at ?? link.submit_started_at ?? '');
    if (now.getTime() - handedAt < roundHandOnWaitMs(staleRoundMs(), context.attempts)) continue;
    try {
      if (await handOnSubmitRound(id, round, now)) {
        report.handed_on++;
        logger.warn('homeowner submit round not made in time: handing it to the worker again', context);
        continue;
      }
      // Not handed on: a maker holds it or it is over, unless its makings are spent.
      if ((link.submit_attempts ?? 0) < currentSettings().INSURED_ROUND_MAX_ATTEMPTS) continue;
      const given = await failSubmitRound(id, round, GIVE_UP_LEASE_MS);
      if (!given) continue;
      report.given_up++;
      logger.error('homeowner submit round given up: every making failed', { ...context, ...given });
      reportError({
        kind: 'watchdog_sweep',
        level: 'error',
        message: `Homeowner submit round ${round} given up after ${context.attempts} makings failed; ${given.rows_returned} row(s) are back in the draft for the next submit`,
        tags: { link_id: id, claim_id: link.claim_id, team_id: link.team_id },
        extra: { round, attempts: context.attempts, ...given },
      });
    } catch (err) {
      logger.error('homeowner submit sweep could not handle a round; the next sweep tries again', {
        ...context,
        error: String(err),
      });
    }
  }
  return report;
}
