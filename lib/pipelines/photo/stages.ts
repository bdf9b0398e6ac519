/**
 * The stage steps both photo pipelines are made of: the first run
 * (pipeline.ts) and the read-the-rest pass (../photo-read-the-rest) differ
 * only in which groups they plan and in what they record at the end.
 *
 *  - startAnalysis stores the run's plan and fans out one unit per AI group;
 *  - analyzeGroup (the unit) makes one group's AI call and records the answer once;
 *  - synthesize (the last stage, run once under a lease) numbers and saves
 *    every item in group order, so items are numbered the way the user grouped
 *    them and a repeated stage writes the same items again.
 */
import { settings } from '../../config';
import { jobCharge } from '../../billing/credit-rules';
import { loadChargeExemptions } from '../../billing/exemption-service';
import { joinedSourceLabels, passBatchPrefix } from '../../inventory/item-rules';
import { saveItemBatch } from '../../inventory/item-store';
import type { InventoryItem, ItemDraft } from '../../inventory/item-record-rules';
import type { Job, TruncatedGroup } from '../../jobs/job-record-rules';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { PipelineFailure } from '../../orchestrator/terminal';
import { getRoom } from '../../rooms/store';
import { loadEffectivePrompts } from '../../settings/prompt-service';
import { autoApprove } from '../auto-approval';
import { draftFromModel, sourceNoteLine, unidentifiedItem } from './answer-rules';
import { callGroup } from './group-call';
import type { PlannedGroup } from './plan-rules';
import { aiCalls, getPlan, getResult, listResults, putPlan, putResult, type RunPlan } from './run-store';

async function requirePlan(job: Job): Promise<RunPlan> {
  const plan = await getPlan(job.id, job.run_id as string);
  if (!plan) throw new Error(`no plan for run ${job.run_id}`);
  return plan;
}

/** The team's instructions for both prompts, fixed into the plan when a run starts. */
export async function promptsFor(job: Job): Promise<RunPlan['prompts']> {
  const prompts = await loadEffectivePrompts(job.team_id);
  return { merged: prompts.merged, unmerged: prompts.unmerged };
}

/** Stores the run's plan and asks the engine for one unit per AI group. */
export async function startAnalysis(ctx: StageContext, plan: RunPlan): Promise<StageOutcome> {
  await putPlan(ctx.job.id, plan);
  const calls = aiCalls(plan).length;
  await ctx.log.info(`${plan.groups.length} group(s): ${calls} AI request(s), ${plan.groups.length - calls} described`);
  return { kind: 'fanout', units: calls, concurrency: settings().OPENROUTER_PHOTO_CONCURRENCY };
}

/** One fan-out unit: the index-th AI group's call, recorded once. */
export async function analyzeGroup(ctx: StageContext, index: number): Promise<void> {
  const { job, log } = ctx;
  const plan = await requirePlan(job);
  const group = aiCalls(plan)[index];
  if (!group) throw new Error(`unit ${index} is outside the plan`);
  if (await getResult(job.id, plan.run_id, group.group_index)) return;
  await putResult(job.id, plan.run_id, await callGroup(job, plan, group, log));
}

function describedDraft(group: PlannedGroup): ItemDraft {
  return {
    name: group.manual_name as string,
    quantity: group.quantity ?? 1,
    confidence: 1,
    notes: sourceNoteLine(group.notes),
    source_group_index: group.group_index,
    source_label: joinedSourceLabels(group.labels ?? []),
    photos: group.photos.map((p) => ({ filename: p.filename, key: p.key })),
  };
}

export interface Synthesis {
  saved: InventoryItem[];
  /** Groups whose AI call was answered (billed and counted). */
  answered: Set<number>;
  truncated: TruncatedGroup[];
  pass: number;
}

/**
 * Turns the plan and the recorded answers into saved items, in group order.
 * When every AI call of the run failed, the run fails with `allFailed`.
 */
export async function synthesize(ctx: StageContext, allFailed: string): Promise<Synthesis> {
  const { job } = ctx;
  const plan = await requirePlan(job);
  const results = await listResults(job.id, plan.run_id);
  const calls = aiCalls(plan);
  const succeeded = calls.filter((g) => results.get(g.group_index)?.outcome === 'ok');
  if (calls.length > 0 && succeeded.length === 0) throw new PipelineFailure(allFailed);

  const drafts: ItemDraft[] = [];
  const truncated: TruncatedGroup[] = [];
  for (const group of plan.groups) {
    if (group.kind === 'described') {
      drafts.push(describedDraft(group));
      continue;
    }
    const result = results.get(group.group_index);
    if (result?.outcome !== 'ok') continue;
    const photos = group.photos.map((p) => ({ filename: p.filename, key: p.key }));
    const items = result.items.length || group.prompt !== 'merged' ? result.items : [unidentifiedItem()];
    drafts.push(
      ...items.map((item) =>
        draftFromModel(item, {
          group_index: group.group_index,
          photos,
          notes: group.notes,
          labels: group.labels,
          quantity: group.quantity,
        }),
      ),
    );
    if (result.cut_short) {
      truncated.push({
        group_index: group.group_index,
        passes: group.pass,
        names: [...group.names_found, ...result.items.map((i) => i.name)],
        too_dense: group.pass >= settings().PHOTO_MAX_PASSES,
      });
    }
  }
  const room = await getRoom(job.room_id);
  const saved = await saveItemBatch(
    job,
    room?.name ?? null,
    `${passBatchPrefix(plan.pass)}${plan.run_id}`,
    plan.pass,
    drafts,
  );
  // Processing rules 4: auto-approval runs after synthesis when the team enabled it.
  await autoApprove(ctx, saved);
  await ctx.log.info(
    `Saved ${saved.length} item(s); ${succeeded.length}/${calls.length} AI request(s) answered; ${truncated.length} group(s) cut short`,
  );
  return { saved, answered: new Set(succeeded.map((g) => g.group_index)), truncated, pass: plan.pass };
}

/** What `requests` answered AI requests of this job cost (the completion summary's billing figures). */
export async function photoCredits(
  job: Job,
  requests: number,
): Promise<{ credits: number; blocks: number; minutes: number }> {
  return jobCharge({ sourceType: 'photo', photoRequests: requests, ...(await loadChargeExemptions(job)) });
}
