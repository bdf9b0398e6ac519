/**
 * The non-HTTP functions: queue workers and schedules. Like the route table,
 * the serverless function list (functions/manifest.js) and the local queue
 * delivery (localstack/) are derived from this one declaration.
 */
import type { QueuePurpose } from '../queue/queues';

export interface QueueWorker {
  kind: 'queue';
  name: string;
  /** Handler module under functions/, without extension. */
  handler: string;
  queue: QueuePurpose;
  batchSize: number;
  timeout: number;
  /** The event source's maximum concurrency (SQS minimum is 2). */
  maximumConcurrency?: number;
}

export interface Schedule {
  kind: 'schedule';
  name: string;
  handler: string;
  /** An EventBridge rate() or cron() expression. */
  rate: string;
  timeout: number;
}

export type BackgroundFunction = QueueWorker | Schedule;

export const backgroundFunctions: BackgroundFunction[] = [
  { kind: 'queue', name: 'purgeWorker', handler: 'workers/purge', queue: 'purge', batchSize: 5, timeout: 300, maximumConcurrency: 2 },
  { kind: 'schedule', name: 'dailyPurge', handler: 'schedules/daily-purge', rate: 'cron(15 3 * * ? *)', timeout: 300 },
];
