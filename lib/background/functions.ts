/**
 * The non-HTTP functions: queue workers and schedules. Like the route table,
 * the serverless function list (deploy/manifest.js) and the local queue
 * delivery (localstack/) are derived from this one declaration.
 */
import type { QueuePurpose } from '../queue/queues';

/**
 * Lambda layers with the native media tools (deploy/layers.js builds them,
 * serverless.yml declares them). Bundles keep sharp, pdfkit, pdf.js and
 * @napi-rs/canvas external and zips leave them out, so a worker that loads
 * one, or runs ffmpeg or ffprobe, must carry its layer ('pdfjs' holds pdf.js
 * with @napi-rs/canvas).
 */
type MediaLayer = 'ffmpeg' | 'ffprobe' | 'sharp' | 'pdfkit' | 'pdfjs';

export interface QueueWorker {
  kind: 'queue';
  name: string;
  /** Handler module under functions/, without extension. */
  handler: string;
  queue: QueuePurpose;
  batchSize: number;
  timeout: number;
  memorySize?: number;
  /** /tmp in MB, when the default 512 MB is too little (Lambda allows up to 10,240). */
  ephemeralStorageMb?: number;
  /** Extra environment for this worker only. */
  environment?: Record<string, string>;
  /** The media layers this worker's code needs at run time (see MediaLayer). */
  layers?: MediaLayer[];
  /** The event source's maximum concurrency (SQS minimum is 2), fixed or taken from a setting at package time. */
  maximumConcurrency?: number | 'OPENROUTER_GLOBAL_CONCURRENCY' | 'WORKER_CONCURRENCY';
}

/** The settings a schedule's rate may come from (lib/config; each an EventBridge rate expression). */
type ScheduleRateSetting = 'WATCHDOG_RATE' | 'BILLING_SWEEP_RATE';

export interface Schedule {
  kind: 'schedule';
  name: string;
  handler: string;
  /**
   * An EventBridge rate() or cron() expression, or the setting that holds one,
   * read at package time (deploy/manifest.js; `npm start` schedules from the same manifest).
   */
  rate: `rate(${string})` | `cron(${string})` | ScheduleRateSetting;
  timeout: number;
}

/** A function behind a Lambda Function URL with response streaming (API Gateway cannot stream). */
export interface StreamingUrl {
  kind: 'stream';
  name: string;
  handler: string;
  timeout: number;
}

export type BackgroundFunction = QueueWorker | Schedule | StreamingUrl;

export const backgroundFunctions: BackgroundFunction[] = [
  // Pipeline stages: one job stage per invocation (lib/orchestrator). Video stages run ffmpeg (the speech track)
  // and sharp (the crops); units decode video stretches; PDF imports read and render pages with pdf.js. Memory buys CPU too: 1,769 MB is one full vCPU.
  {
    kind: 'queue',
    name: 'stageWorker',
    handler: 'workers/stages',
    queue: 'stages',
    batchSize: 1,
    timeout: 900,
    memorySize: 2048,
    // A PDF being read is written to /tmp for its sandbox (lib/pdf/sandbox.ts): the largest upload, 512 MiB, and room.
    ephemeralStorageMb: 1024,
    maximumConcurrency: 'WORKER_CONCURRENCY',
    layers: ['ffmpeg', 'ffprobe', 'sharp', 'pdfjs'],
  },
  // Fan-out units (one AI call each, or one 2-minute stretch of frames): global AI concurrency is this event
  // source's maximum concurrency. Decoding video is CPU-bound: the memory is for the CPU share that comes with it.
  {
    kind: 'queue',
    name: 'unitWorker',
    handler: 'workers/units',
    queue: 'units',
    batchSize: 1,
    timeout: 900,
    memorySize: 2048,
    // A PDF being read is written to /tmp for its sandbox (lib/pdf/sandbox.ts): the largest upload, 512 MiB, and room.
    ephemeralStorageMb: 1024,
    maximumConcurrency: 'OPENROUTER_GLOBAL_CONCURRENCY',
    layers: ['ffmpeg', 'ffprobe', 'sharp', 'pdfjs'],
  },
  // Measures uploaded video/audio (duration for pricing) with ffprobe.
  {
    kind: 'queue',
    name: 'probeWorker',
    handler: 'workers/probe',
    queue: 'probe',
    batchSize: 1,
    timeout: 120,
    maximumConcurrency: 5,
    layers: ['ffprobe'],
  },
  // Re-encodes landed photos to upright RGB JPEGs, and cuts user-drawn segments out of them.
  // One photo per invocation: a HEIC decode peaks near 500 MB, so five at once would pass memorySize
  // (`npm run bench -- photo-memory`). A bounded glibc arena count stops RSS creeping across decodes.
  {
    kind: 'queue',
    name: 'photoWorker',
    handler: 'workers/photos',
    queue: 'photos',
    batchSize: 1,
    timeout: 300,
    maximumConcurrency: 10,
    memorySize: 1536,
    environment: { MALLOC_ARENA_MAX: '2' },
    layers: ['sharp'],
  },
  // Builds Excel, CSV and PDF exports into the bucket (lib/exports). One export per invocation: a claim of
  // 5,000 items with photos peaks under 400 MB RSS (`npm run bench -- exports`); the memory buys CPU time.
  {
    kind: 'queue',
    name: 'exportWorker',
    handler: 'workers/exports',
    queue: 'exports',
    batchSize: 1,
    timeout: 300,
    maximumConcurrency: 5,
    memorySize: 2048,
    environment: { MALLOC_ARENA_MAX: '2' },
    layers: ['sharp', 'pdfkit'],
  },
  // Job events (server-sent events): ~10 minutes of polling per connection.
  { kind: 'stream', name: 'jobStream', handler: 'streams/job-stream', timeout: 660 },
  { kind: 'schedule', name: 'watchdog', handler: 'schedules/watchdog', rate: 'WATCHDOG_RATE', timeout: 300 },
  {
    kind: 'queue',
    name: 'purgeWorker',
    handler: 'workers/purge',
    queue: 'purge',
    batchSize: 5,
    timeout: 300,
    maximumConcurrency: 2,
  },
  { kind: 'schedule', name: 'dailyPurge', handler: 'schedules/daily-purge', rate: 'cron(15 3 * * ? *)', timeout: 300 },
  // Expires chunked uploads left open for over a day and aborts their S3 multipart uploads.
  { kind: 'schedule', name: 'uploadSweep', handler: 'schedules/upload-sweep', rate: 'rate(1 hour)', timeout: 300 },
  // Settles refunds the billing service did not confirm and spends whose answer was lost (lib/billing/settlement-service.ts).
  {
    kind: 'schedule',
    name: 'billingSweep',
    handler: 'schedules/billing-sweep',
    rate: 'BILLING_SWEEP_RATE',
    timeout: 300,
  },
];

/**
 * How long the declared function `name` may run, in seconds: what a lease
 * held by one of its invocations has to outlast, so a live invocation never
 * loses it to another.
 */
export function functionTimeoutSeconds(name: string): number {
  const declared = backgroundFunctions.find((f) => f.name === name);
  if (!declared) throw new Error(`no background function named ${name}`);
  return declared.timeout;
}
