/**
 * The photo pipeline (spec: Photo pipeline (live path); Output budget and
 * truncation; Processing rules) and its follow-up pass, read the rest.
 *
 *   photo:               analyze (analyzing): fix the groups, then one unit per AI group → synthesize (synthesizing)
 *   photo-read-the-rest: reread: one unit per recorded group → reread_synthesize, appending after the job's items
 *
 * Units only record what the model answered; the synthesize stage, which runs
 * once under a lease, numbers and saves every item in group order, so items
 * are numbered the way the user grouped them and a repeated stage writes the
 * same items again.
 */
import { settings } from '../../config';
import { deleteObject } from '../../blob/objects';
import { jobCharge } from '../../billing/credits';
import { chargeExemptions } from '../../billing/exemptions';
import { autoApprovalRules, shouldAutoApprove } from '../../inventory/auto-approval';
import {
  deleteJobItems,
  passBatchPrefix,
  saveItemBatch,
  setItemsApproved,
  type InventoryItem,
  type ItemDraft,
} from '../../inventory/items';
import type { Job, TruncatedGroup } from '../../jobs/job';
import { PipelineFailure } from '../../orchestrator/terminal';
import type { CompletionSummary, PipelineDefinition, StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { deleteStagedPhotos, listStagedPhotos } from '../../photos/staged-photo';
import { getRoom } from '../../rooms/room';
import { effectivePrompts } from '../../settings/prompts';
import { draftFromModel, sourceNoteLine } from './answer';
import { callGroup } from './group-call';
import { groupsWithPassLeft } from './passes';
import { planGroups, type PlannedGroup } from './plan';
import { aiCalls, getPlan, getResult, listResults, putPlan, putResult, type RunPlan } from './records';

export const ALL_AI_FAILED =
  'Every AI request of this job failed, so no items could be made. Nothing was charged; please process it again.';
export const PASS_ALL_FAILED =
  'Every AI request of this read-the-rest pass failed. Nothing was charged for it; please try again.';
/** A merged group or segment always yields one item, even when the model found none. */
export const UNIDENTIFIED_ITEM = 'Unidentified item';

async function requirePlan(job: Job): Promise<RunPlan> {
  const plan = await getPlan(job.id, job.run_id as string);
  if (!plan) throw new Error(`no plan for run ${job.run_id}`);
  return plan;
}

/** First stage of a run: soft-deleted photos go (spec: Photo pipeline 3), the groups and prompts are fixed. */
async function prepareFirstRun(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const photos = await listStagedPhotos(job.id);
  // A deleted photo whose segments remain is kept hidden: its crops are cut from it.
  const segmentSources = new Set(photos.filter((p) => p.is_segment && !p.deleted).map((p) => p.segment_of));
  const removed = photos.filter((p) => p.deleted && (p.is_segment || !segmentSources.has(p.index)));
  if (removed.length) {
    await Promise.all(removed.flatMap((p) => [deleteObject(p.key), deleteObject(p.incoming_key)]));
    await deleteStagedPhotos(
      job.id,
      removed.map((p) => p.index),
    );
    await log.info(`Removed ${removed.length} deleted photo(s)`);
  }
  const groups = planGroups(photos.filter((p) => !removed.includes(p)));
  return startAnalysis(ctx, { run_id: job.run_id as string, pass: 1, groups, prompts: await promptsFor(job) });
}

async function promptsFor(job: Job) {
  const prompts = await effectivePrompts(job.team_id);
  return { merged: prompts.merged, unmerged: prompts.unmerged };
}

async function startAnalysis(ctx: StageContext, plan: RunPlan): Promise<StageOutcome> {
  await putPlan(ctx.job.id, plan);
  const calls = aiCalls(plan).length;
  await ctx.log.info(`${plan.groups.length} group(s): ${calls} AI request(s), ${plan.groups.length - calls} described`);
  return { kind: 'fanout', units: calls, concurrency: settings().OPENROUTER_PHOTO_CONCURRENCY };
}

/** One fan-out unit: the index-th AI group's call, recorded once. */
async function analyzeGroup(ctx: StageContext, index: number): Promise<void> {
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
    photos: group.photos.map((p) => ({ filename: p.filename, key: p.key })),
  };
}

interface Synthesis {
  saved: InventoryItem[];
  /** Groups whose AI call was answered (billed and counted). */
  answered: Set<number>;
  truncated: TruncatedGroup[];
  pass: number;
}

/** Turns the plan and the recorded answers into saved items, in group order. */
async function synthesize(ctx: StageContext): Promise<Synthesis> {
  const { job } = ctx;
  const plan = await requirePlan(job);
  const results = await listResults(job.id, plan.run_id);
  const calls = aiCalls(plan);
  const succeeded = calls.filter((g) => results.get(g.group_index)?.outcome === 'ok');
  if (calls.length > 0 && succeeded.length === 0)
    throw new PipelineFailure(plan.pass === 1 ? ALL_AI_FAILED : PASS_ALL_FAILED);

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
    const items =
      result.items.length || group.prompt !== 'merged'
        ? result.items
        : [{ ...emptyModelItem(), name: UNIDENTIFIED_ITEM }];
    drafts.push(
      ...items.map((item) =>
        draftFromModel(item, { group_index: group.group_index, photos, notes: group.notes, quantity: group.quantity }),
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
  await autoApprove(ctx, saved);
  await ctx.log.info(
    `Saved ${saved.length} item(s); ${succeeded.length}/${calls.length} AI request(s) answered; ${truncated.length} group(s) cut short`,
  );
  return { saved, answered: new Set(succeeded.map((g) => g.group_index)), truncated, pass: plan.pass };
}

function emptyModelItem() {
  return {
    name: '',
    quantity: 1,
    brand: null,
    model: null,
    serial: null,
    sku: null,
    condition: null,
    age: null,
    estimated_price: null,
    damage: null,
    notes: null,
    confidence: 0,
    evidence: null,
  };
}

/** Processing rules 4: auto-approval runs after synthesis when the team enabled it. */
async function autoApprove(ctx: StageContext, items: InventoryItem[]): Promise<void> {
  const rules = await autoApprovalRules(ctx.job.team_id);
  if (!rules) return;
  const approved = items.filter((item) => shouldAutoApprove(item, rules)).map((i) => i.id);
  await setItemsApproved(approved);
  if (approved.length) await ctx.log.info(`Auto-approved ${approved.length} item(s)`);
}

async function credits(job: Job, requests: number): Promise<{ credits: number; blocks: number; minutes: number }> {
  return jobCharge({ sourceType: 'photo', photoRequests: requests, ...(await chargeExemptions(job)) });
}

export const photoPipeline: PipelineDefinition = {
  name: 'photo',
  sourceType: 'photo',
  stages: [
    // The run fixes the groups, then fans out one AI call per group.
    { name: 'analyze', status: 'analyzing', progress: [5, 85], run: prepareFirstRun, unit: analyzeGroup },
    {
      name: 'synthesize',
      status: 'synthesizing',
      progress: [85, 100],
      async run(ctx) {
        const s = await synthesize(ctx);
        return {
          kind: 'next',
          set: {
            photo_request_count: s.answered.size,
            photo_truncated_groups: s.truncated,
            items_found: s.saved.length,
            photo_pass: 1,
          },
        };
      },
    },
  ],
  async complete({ job }): Promise<CompletionSummary> {
    return { items_found: job.items_found, ...(await credits(job, job.photo_request_count)) };
  },
  async clearPartialResults(job) {
    await deleteJobItems(job.id, 1);
  },
};

// ---------------------------------------------------------------------------
// Read the rest
// ---------------------------------------------------------------------------

async function prepareReread(ctx: StageContext): Promise<StageOutcome> {
  const { job } = ctx;
  const wanted = new Map(groupsWithPassLeft(job).map((g) => [g.group_index, g]));
  const photos = await listStagedPhotos(job.id);
  const pass = (job.photo_pass ?? 1) + 1;
  const groups = planGroups(photos)
    .filter((g) => g.kind === 'ai' && wanted.has(g.group_index))
    .map((g) => ({
      ...g,
      pass: (wanted.get(g.group_index) as TruncatedGroup).passes + 1,
      names_found: (wanted.get(g.group_index) as TruncatedGroup).names,
    }));
  return startAnalysis(ctx, { run_id: job.run_id as string, pass, groups, prompts: await promptsFor(job) });
}

export const readTheRestPipeline: PipelineDefinition = {
  name: 'photo-read-the-rest',
  sourceType: 'photo',
  stages: [
    { name: 'reread', status: 'analyzing', progress: [5, 85], run: prepareReread, unit: analyzeGroup },
    {
      name: 'reread_synthesize',
      status: 'synthesizing',
      progress: [85, 100],
      async run(ctx) {
        const s = await synthesize(ctx);
        // Groups re-read and answered leave the list unless cut short again; failed ones keep their entry for another try.
        const kept = (ctx.job.photo_truncated_groups ?? []).filter((g) => !s.answered.has(g.group_index));
        const truncated = [...kept, ...s.truncated].sort((a, b) => a.group_index - b.group_index);
        return {
          kind: 'next',
          set: {
            photo_request_count: (ctx.job.photo_request_count ?? 0) + s.answered.size,
            pass_request_count: s.answered.size,
            photo_truncated_groups: truncated,
            items_found: (ctx.job.items_found ?? 0) + s.saved.length,
            photo_pass: s.pass,
          },
        };
      },
    },
  ],
  async complete({ job }): Promise<CompletionSummary> {
    return { items_found: job.items_found, ...(await credits(job, job.pass_request_count ?? 0)) };
  },
  async clearPartialResults(job) {
    await deleteJobItems(job.id, (job.photo_pass ?? 1) + 1);
  },
  followUp: true,
};
