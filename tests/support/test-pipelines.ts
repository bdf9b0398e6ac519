/**
 * Pipelines declared by the tests to prove the engine. What each stage does
 * for a job (sleep, fail, hang, fan out) is scripted per job in a table row,
 * so a worker in another process sees the same script. Every execution is
 * recorded atomically in a record row the tests read back. The pipeline
 * guide's example (example-pipeline/) is registered beside them.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/client';
import { getJob, putNewJob, updateJob } from '../../lib/jobs/job-store';
import { newJobRecord, type Job } from '../../lib/jobs/job-record-rules';
import {
  registerPipeline,
  type BranchDefinition,
  type PipelineDefinition,
  type StageDefinition,
  type Step,
  type StepStage,
} from '../../lib/orchestrator/pipeline';
import { PipelineFailure } from '../../lib/orchestrator/terminal';
import { wordCountPipeline } from './example-pipeline/pipeline';

export interface Script {
  /** Milliseconds each named stage or branch (or every unit, 'unit') sleeps. */
  sleepMs?: Record<string, number>;
  /** This stage throws a PipelineFailure with this message. */
  fail?: { stage: string; message: string };
  /** This stage (or branch) never returns (the worker looks dead or hung). */
  hangStage?: string;
  /** Branch name → a sibling branch it keeps running until (then it sleeps its sleepMs): fixes which ends first. */
  outlast?: Record<string, string>;
  /** What the 'split' stage, or the 'frames' branch, fans out. */
  fanout?: { units: number; concurrency: number };
  /** Stage name → how many of its first runs throw a plain error (a store fault that passes, not a PipelineFailure). */
  stageFaults?: Record<string, number>;
  /** Unit index → how many of its first attempts throw. */
  unitFailures?: Record<number, number>;
  /** Unit index → how many of its first attempts never return (their worker looks dead). */
  hangUnits?: Record<number, number>;
  items?: number;
  credits?: number;
}

const scriptKey = (jobId: string) => ({ pk: `TESTSCRIPT#${jobId}`, sk: 'SCRIPT' });
const recordKey = (jobId: string) => ({ pk: `TESTSCRIPT#${jobId}`, sk: 'RECORD' });

export async function setScript(jobId: string, script: Script): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...scriptKey(jobId), script } }));
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...recordKey(jobId), order: [], spans: [], inflight: 0, max_inflight: 0, cleared: 0 },
    }),
  );
}

async function script(jobId: string): Promise<Script> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: scriptKey(jobId), ConsistentRead: true }),
  );
  return (Item?.script as Script) ?? {};
}

/** When a run ('frames', 'transcript', …) or a unit ('unit 3') worked, in epoch milliseconds. */
/** A video job of a fresh room and team, awaiting confirmation (or as `fields` say), run by `script`. */
export async function scriptedJob(script: Script, fields: Partial<Job> = {}): Promise<Job> {
  const job = newJobRecord({
    room: { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() },
    userId: randomUUID(),
    sourceType: 'video',
    status: 'awaiting_confirmation',
  });
  Object.assign(job, fields);
  await putNewJob(job);
  await setScript(job.id, script);
  return job;
}

/** Puts the job 25 hours into a run of the linear test pipeline, its stage b still queued: past the watchdog's day limit. */
export async function makeStuckForADay(jobId: string): Promise<void> {
  const dayAgo = new Date(Date.now() - 25 * 3600_000).toISOString();
  await updateJob(jobId, ['job', 'run'], {
    set: {
      status: 'analyzing',
      pipeline: linearPipeline.name,
      run_id: randomUUID(),
      stage_name: 'b',
      stage_state: 'queued',
      started_at: dayAgo,
      heartbeat_at: dayAgo,
    },
  });
}

export interface Span {
  name: string;
  start: number;
  end: number;
}

export interface RunRecord {
  order: string[];
  spans: Span[];
  runs: Record<string, number>;
  units: Record<number, number>;
  max_inflight: number;
  cleared: number;
}

export async function runRecord(jobId: string): Promise<RunRecord> {
  const { Item = {} } = await db().send(
    new GetCommand({ TableName: tableName(), Key: recordKey(jobId), ConsistentRead: true }),
  );
  const runs: Record<string, number> = {};
  const units: Record<number, number> = {};
  for (const [k, v] of Object.entries(Item)) {
    if (k.startsWith('runs_')) runs[k.slice(5)] = Number(v);
    if (k.startsWith('unit_')) units[Number(k.slice(5))] = Number(v);
  }
  return {
    order: (Item.order as string[]) ?? [],
    spans: (Item.spans as Span[]) ?? [],
    runs,
    units,
    max_inflight: Number(Item.max_inflight ?? 0),
    cleared: Number(Item.cleared ?? 0),
  };
}

async function record(
  jobId: string,
  expression: string,
  values: Record<string, unknown>,
  names?: Record<string, string>,
) {
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: recordKey(jobId),
      UpdateExpression: expression,
      ExpressionAttributeValues: values,
      ExpressionAttributeNames: names,
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Attributes ?? {};
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function recordSpan(jobId: string, name: string, start: number) {
  await record(
    jobId,
    'SET #spans = list_append(#spans, :span)',
    { ':span': [{ name, start, end: Date.now() }] },
    {
      '#spans': 'spans',
    },
  );
}

/** A scripted run and unit, for a stage or a branch named `name`. */
function scriptedStep(name: string): Step {
  return {
    async run({ job }) {
      const start = Date.now();
      const runs = await record(
        job.id,
        `ADD #runs :one SET #order = list_append(#order, :name)`,
        { ':one': 1, ':name': [name] },
        { '#runs': `runs_${name}`, '#order': 'order' },
      );
      const s = await script(job.id);
      if ((s.stageFaults?.[name] ?? 0) >= Number(runs[`runs_${name}`]))
        throw new Error(`stage ${name} faulted on purpose`);
      if (s.hangStage === name) await new Promise(() => undefined);
      const sibling = s.outlast?.[name];
      if (sibling)
        while ((await getJob(job.id))?.branches?.[sibling]?.state !== 'done' && Date.now() - start < 30_000)
          await sleep(50);
      await sleep(s.sleepMs?.[name] ?? 0);
      if (s.fail?.stage === name) throw new PipelineFailure(s.fail.message);
      await recordSpan(job.id, name, start);
      if (s.fanout && (name === 'split' || name === 'frames'))
        return { kind: 'fanout', units: s.fanout.units, concurrency: s.fanout.concurrency };
      return { kind: 'next' };
    },
    async unit({ job }, index) {
      const start = Date.now();
      const attrs = await record(job.id, 'ADD #unit :one, inflight :one', { ':one': 1 }, { '#unit': `unit_${index}` });
      const inflight = Number(attrs.inflight);
      await db()
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: recordKey(job.id),
            UpdateExpression: 'SET max_inflight = :n',
            ConditionExpression: 'max_inflight < :n',
            ExpressionAttributeValues: { ':n': inflight },
          }),
        )
        .catch(() => undefined);
      try {
        const s = await script(job.id);
        if ((s.hangUnits?.[index] ?? 0) >= Number(attrs[`unit_${index}`])) await new Promise(() => undefined);
        await sleep(s.sleepMs?.unit ?? 0);
        if ((s.unitFailures?.[index] ?? 0) >= Number(attrs[`unit_${index}`]))
          throw new Error(`unit ${index} failed on purpose`);
        await recordSpan(job.id, `unit ${index}`, start);
      } finally {
        await record(job.id, 'ADD inflight :minus', { ':minus': -1 });
      }
    },
  };
}

function scriptedStage(name: string, status: StageDefinition['status'], progress: [number, number]): StepStage {
  return { name, status, progress, ...scriptedStep(name) };
}

const scriptedBranch = (name: string): BranchDefinition => ({ name, ...scriptedStep(name) });

function pipeline(name: string, stages: StageDefinition[]): PipelineDefinition {
  return {
    name,
    sourceType: 'video',
    stages,
    async complete({ job }) {
      const s = await script(job.id);
      return { items_found: s.items ?? 3, credits: s.credits ?? 0, blocks: 1, minutes: 1 };
    },
    async clearPartialResults(job) {
      await record(job.id, 'ADD cleared :one', { ':one': 1 });
    },
  };
}

export const linearPipeline = pipeline('test-linear', [
  scriptedStage('a', 'extracting', [0, 30]),
  scriptedStage('b', 'analyzing', [30, 80]),
  scriptedStage('c', 'synthesizing', [80, 100]),
]);

export const fanoutPipeline = pipeline('test-fanout', [
  scriptedStage('split', 'analyzing', [0, 80]),
  scriptedStage('finish', 'synthesizing', [80, 100]),
]);

/** One stage that may run three times: after a fault (not a PipelineFailure) it is tried again twice. */
export const retryingPipeline = pipeline('test-retrying', [
  { ...scriptedStage('flaky', 'analyzing', [0, 100]), retries: 2 },
]);

/** Frames (a fan-out) ‖ transcript (one run), joined before analyze; the video pipeline's status rule. */
export const branchPipeline = pipeline('test-branches', [
  {
    name: 'extract',
    status: 'extracting',
    progress: [0, 40],
    branches: [scriptedBranch('frames'), scriptedBranch('transcript')],
    statusWhile: (done) => (done.includes('frames') ? 'transcribing' : 'extracting'),
  },
  scriptedStage('analyze', 'analyzing', [40, 100]),
]);

/** A preparing pipeline (as the PDF import is): it runs in importing_pdf and hands the job on to awaiting_grouping. */
export const preparingPipeline: PipelineDefinition = {
  ...pipeline('test-preparing', [
    scriptedStage('split', 'importing_pdf', [0, 80]),
    scriptedStage('finish', 'importing_pdf', [80, 100]),
  ]),
  sourceType: 'photo',
  preparation: true,
};

export function registerTestPipelines(): void {
  registerPipeline(linearPipeline);
  registerPipeline(preparingPipeline);
  registerPipeline(fanoutPipeline);
  registerPipeline(retryingPipeline);
  registerPipeline(branchPipeline);
  registerPipeline(wordCountPipeline);
}
