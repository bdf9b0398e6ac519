/**
 * A second deployment stage ('engine') on the run's shared emulators, with
 * its own table and queues, where the tests run the REAL worker handlers
 * (functions/workers/stages.ts, units.ts) on test-declared pipelines —
 * in-process, or in a child process that a test can kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildSync } from 'esbuild';
import type { Context, SQSEvent } from 'aws-lambda';
import { useOwnStage } from './stage';

const { startQueueDelivery } = require('../../localstack/runtime/queue-delivery.js');

const ENGINE_STAGE = 'engine';
const root = join(__dirname, '..', '..');

export interface EngineStage {
  name: string;
  env: Record<string, string>;
  queues: { stages: string; units: string };
}

/**
 * Provisions the engine stage and points this process's settings at it. Call before any lib code runs.
 * Suites that may run at the same time each take a stage of their own (`name`), so neither's workers take
 * the other's messages.
 */
export async function useEngineStage(
  overrides: Record<string, string> = {},
  name = ENGINE_STAGE,
): Promise<EngineStage> {
  const { env, resources } = await useOwnStage(name, {
    STAGE_LEASE_SECONDS: '3',
    LOG_LEVEL: process.env.ENGINE_LOG_LEVEL ?? 'ERROR',
    ...overrides,
  });
  // A message handed to a worker that was just killed comes back after the
  // visibility timeout, as in AWS; 10 s keeps that wait short in tests (the
  // test stages run well under it, and the stage lease drops redeliveries).
  const sqs = new SQSClient({});
  for (const id of ['StagesQueue', 'UnitsQueue']) {
    await sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: resources[id].ref, Attributes: { VisibilityTimeout: '10' } }),
    );
  }
  sqs.destroy();
  return { name, env, queues: { stages: resources.StagesQueue.ref, units: resources.UnitsQueue.ref } };
}

const context = {
  awsRequestId: 'test',
  functionName: 'test',
  getRemainingTimeInMillis: () => 900_000,
} as unknown as Context;

/** Delivers the engine stage's queues to the real worker handlers in this process. */
export function startInProcessWorkers(stage: EngineStage, concurrency = { stages: 4, units: 8 }) {
  // Loaded lazily so the settings above are in place first.
  const handlers: Record<string, (event: SQSEvent, ctx: Context) => Promise<unknown>> = {
    stageWorker: require('../../functions/workers/stages').handler,
    unitWorker: require('../../functions/workers/units').handler,
  };
  return startQueueDelivery({
    consumers: [
      { name: 'stageWorker', queueUrl: stage.queues.stages, batchSize: 1, concurrency: concurrency.stages },
      { name: 'unitWorker', queueUrl: stage.queues.units, batchSize: 1, concurrency: concurrency.units },
    ],
    invoke: async (name: string, event: SQSEvent) => {
      try {
        return { payload: await handlers[name](event, context) };
      } catch (err) {
        return { error: String(err), payload: null };
      }
    },
    sqsEndpoint: process.env.AWS_ENDPOINT_URL_SQS,
    log: (line: string) => process.env.ENGINE_DEBUG && console.log(`[delivery] ${line}`),
  }) as { stop(): Promise<void>; pending(): Promise<number> };
}

/** The same workers in a child process (bundled with esbuild), so a test can SIGKILL them mid-stage. */
export async function startWorkerProcess(
  stage: EngineStage,
  extraEnv: Record<string, string> = {},
): Promise<ChildProcess> {
  const outDir = join(root, 'node_modules', '.cache', 'contents-inventory');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${stage.name}-worker.js`);
  buildSync({
    entryPoints: [join(__dirname, 'engine-worker-main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
  const child = spawn(process.execPath, [outfile], {
    env: {
      ...process.env,
      ...stage.env,
      ...extraEnv,
      ENGINE_STAGES_QUEUE: stage.queues.stages,
      ENGINE_UNITS_QUEUE: stage.queues.units,
      ENGINE_STAGE_NAME: stage.name,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Set ENGINE_DEBUG=1 to see the worker's output.
  child.stderr?.on('data', (c) => process.env.ENGINE_DEBUG && console.log('worker stderr:', String(c)));
  child.stdout?.on('data', (c) => process.env.ENGINE_DEBUG && console.log('worker:', String(c).slice(0, 300)));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => String(chunk).includes('engine worker ready') && resolve());
    child.once('exit', (code) => reject(new Error(`engine worker exited early (${code})`)));
  });
  return child;
}

/**
 * SIGKILLs a worker process and waits until its last 1-second long polls
 * have expired at the SQS emulator, which otherwise may still hand the next
 * message to a poll whose process is gone (it would come back only after the
 * visibility timeout).
 */
export async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  await new Promise((r) => setTimeout(r, 2000));
}

/** Waits for a worker process that kills itself (ENGINE_KILL_AFTER_FANIN), then for its last polls to expire. */
export async function selfKilled(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
  await new Promise((r) => setTimeout(r, 2000));
  return child.signalCode;
}

/** Sets a queue's visibility timeout: how long a received, undeleted message stays hidden. */
export async function setVisibilityTimeout(queueUrl: string, seconds: number): Promise<void> {
  const sqs = new SQSClient({});
  await sqs.send(
    new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: String(seconds) } }),
  );
  sqs.destroy();
}
