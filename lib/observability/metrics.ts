/**
 * The service's metrics (spec: Outbound signals), recorded through the
 * OpenTelemetry SDK when the export is on (otel.ts) and dropped otherwise:
 *
 *   contentsvision.jobs                     job runs ended, by pipeline, source type and outcome
 *   contentsvision.job.duration             seconds from a run's start to its end
 *   contentsvision.pipeline.stage.duration  seconds a stage took, start to advance (fan-out included)
 *   contentsvision.ai.tokens                AI gateway tokens, by model, purpose and direction
 *   contentsvision.ai.cost_usd              AI gateway spend in dollars
 *   contentsvision.items.produced           inventory items a run made
 *   contentsvision.billing.credits          credits a completed job run billed
 *
 * Attributes are low-cardinality kinds only, never ids.
 */
import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import { otelSignal } from './otel';
import type { MetricExport } from './otel-metrics-sdk';

interface Instruments {
  jobs: Counter;
  jobDuration: Histogram;
  stageDuration: Histogram;
  aiTokens: Counter;
  aiCost: Counter;
  items: Counter;
  credits: Counter;
}

/** Seconds: runs take from seconds to an hour. */
const DURATION_BUCKETS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600];

const byMeter = new WeakMap<Meter, Instruments>();

function instruments(): Instruments | null {
  const meter = otelSignal<MetricExport>('metrics', (config) => {
    const { startMetrics }: typeof import('./otel-metrics-sdk') = require('./otel-metrics-sdk');
    return startMetrics(config);
  })?.meter;
  if (!meter) return null;
  let made = byMeter.get(meter);
  if (!made) {
    const seconds = { unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS } };
    made = {
      jobs: meter.createCounter('contentsvision.jobs', { description: 'Job runs ended', unit: '{job}' }),
      jobDuration: meter.createHistogram('contentsvision.job.duration', {
        ...seconds,
        description: "A job run's time from start to end",
      }),
      stageDuration: meter.createHistogram('contentsvision.pipeline.stage.duration', {
        ...seconds,
        description: "A pipeline stage's time from start to advance",
      }),
      aiTokens: meter.createCounter('contentsvision.ai.tokens', {
        description: 'AI gateway tokens',
        unit: '{token}',
      }),
      aiCost: meter.createCounter('contentsvision.ai.cost_usd', { description: 'AI gateway spend', unit: 'USD' }),
      items: meter.createCounter('contentsvision.items.produced', {
        description: 'Inventory items made by job runs',
        unit: '{item}',
      }),
      credits: meter.createCounter('contentsvision.billing.credits', {
        description: 'Credits billed',
        unit: '{credit}',
      }),
    };
    byMeter.set(meter, made);
  }
  return made;
}

const positive = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/** A job run ended: counted with its outcome, its duration, the items it made and the credits it billed. */
export function recordRunEnd(run: {
  pipeline: string;
  sourceType: string;
  outcome: string;
  seconds: number | null;
  items: number;
  credits: number;
}): void {
  const made = instruments();
  if (!made) return;
  const attributes: Attributes = { pipeline: run.pipeline, source_type: run.sourceType, outcome: run.outcome };
  made.jobs.add(1, attributes);
  if (run.seconds !== null && Number.isFinite(run.seconds)) made.jobDuration.record(run.seconds, attributes);
  const kind = { pipeline: run.pipeline, source_type: run.sourceType };
  if (positive(run.items)) made.items.add(run.items, kind);
  if (positive(run.credits)) made.credits.add(run.credits, { ...kind, billed_for: 'job' });
}

/** A stage of a run finished (advanced to the next, or to the end). */
export function recordStageDuration(pipeline: string, stage: string, seconds: number): void {
  if (Number.isFinite(seconds)) instruments()?.stageDuration.record(Math.max(0, seconds), { pipeline, stage });
}

/** One AI gateway call's usage (every attempt that came back with usage). */
export function recordAiUsage(call: {
  model: string;
  purpose: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}): void {
  const made = instruments();
  if (!made) return;
  const kind = { model: call.model, purpose: call.purpose };
  if (positive(call.inputTokens)) made.aiTokens.add(call.inputTokens, { ...kind, direction: 'input' });
  if (positive(call.outputTokens)) made.aiTokens.add(call.outputTokens, { ...kind, direction: 'output' });
  if (positive(call.costUsd)) made.aiCost.add(call.costUsd, kind);
}
