/**
 * The capacity and cost model of docs/capacity.md, derived from one run's
 * counts: each job type's figures per unit (photo, video minute, page, item)
 * times a day of 1,000 teams, then the peak rates, the Lambda concurrency
 * each function needs at peak (Little's law: invocations a second × seconds
 * each), the writes a second to each shared partition, and a month's AWS
 * bill at list prices. The assumptions are named here once and printed with
 * the figures.
 */
import type { ScenarioResult } from './measure';
import { totalsOf } from './report-tables';
import type { OpsCounts } from './tally';

/** What 1,000 teams do in a day (the issue's scale), and how each job type's unit count follows from it. */
export const DAY = {
  photos: 100_000,
  videos: 2_000,
  videoMinutes: 10,
  lists: 500,
  listPages: 300,
  /** A claim per 50 photos; each claim's 50 items exported once as Excel and once as the PDF report, and sent once. */
  claims: 2_000,
  itemsPerClaim: 50,
  /** The share of claims sent to each platform (the claims platform or the estimation platform). */
  sentToEachPlatform: 0.5,
} as const;

/** The day's work falls in 10 busy hours, and the busiest hour has twice an average busy hour's work. */
const BUSY_SECONDS = 10 * 3600;
const PEAK_FACTOR = 2;
const peakPerSecond = (perDay: number) => (perDay * PEAK_FACTOR) / BUSY_SECONDS;

/** us-east-1 on-demand list prices (USD), as published in 2025; check them before budgeting. */
export const PRICES = {
  lambdaPerMillionRequests: 0.2,
  lambdaPerGbSecond: 0.0000166667,
  httpApiPerMillionRequests: 1.0,
  dynamoPerMillionWrites: 0.625,
  dynamoPerMillionReads: 0.125,
  s3PerThousandWrites: 0.005,
  s3PerThousandReads: 0.0004,
  s3PerGbMonth: 0.023,
  sqsPerMillionRequests: 0.4,
  /** Not AWS: the model's own assumptions, shown apart. */
  aiPerCall: 0.01,
  speechPerMinute: 0.006,
} as const;
/** How long one AI call takes at the provider (the benchmark's fake answers at once): a vision call of a few images. */
const AI_CALL_SECONDS = 8;
/** Media is kept a month (each day's bytes stored for 30 days): the bucket holds 30 days of uploads. */
const STORED_DAYS = 30;
const DAYS_PER_MONTH = 30;
/** DynamoDB's limit per partition: 1,000 write units a second. */
const PARTITION_WRITE_UNITS = 1000;
/** S3's request rate per prefix: 3,500 writes and 5,500 reads a second. */
const S3_PREFIX_WRITES = 3500;

/** The day's units of each measured job type, by its title; `units` is what the measured job had. */
function unitsPerDay(title: string, units: number): { units: number; what: string } | null {
  // Each list's photos are processed once after its read: the measured job is one list's.
  if (/photo job after/.test(title)) return { units: DAY.lists * units, what: `the photos of ${DAY.lists} lists` };
  if (/photo job/.test(title)) return { units: DAY.photos, what: `${DAY.photos} photos` };
  if (/minute video/.test(title))
    return { units: DAY.videos * DAY.videoMinutes, what: `${DAY.videos} videos of ${DAY.videoMinutes} min` };
  if (/contents list/.test(title))
    return { units: DAY.lists * DAY.listPages, what: `${DAY.lists} lists of ${DAY.listPages} pages` };
  if (/send to the/.test(title)) {
    const claims = DAY.claims * DAY.sentToEachPlatform;
    return { units: claims * DAY.itemsPerClaim, what: `${claims} claims of ${DAY.itemsPerClaim} items` };
  }
  if (/export/.test(title))
    return { units: DAY.claims * DAY.itemsPerClaim, what: `${DAY.claims} claims of ${DAY.itemsPerClaim} items` };
  return null;
}

/** S3 request kinds billed at the write price (PUT, COPY, POST, LIST and the multipart steps). */
const S3_WRITE_KINDS = /^(Put|Post|Copy|List|CreateMultipart|UploadPart|CompleteMultipart)/;
const S3_FREE_KINDS = /^(Delete|AbortMultipart)/;

interface Scaled {
  title: string;
  what: string;
  factor: number;
  counts: OpsCounts;
  providers: { ai: number; speech: number };
}

export interface CapacityModel {
  jobTypes: { title: string; what: string; monthlyUsd: Record<string, number>; aiCalls: number; speechCalls: number }[];
  functions: {
    name: string;
    perDay: number;
    peakPerSecond: number;
    seconds: number;
    concurrency: number;
    /** The queue worker's maximum concurrency (its event source's), when it has one. */
    bound: number | null;
  }[];
  /** AI calls in flight at peak when each takes AI_CALL_SECONDS at the provider. */
  aiInFlight: number;
  partitions: { shape: string; perDay: number; peakPerSecond: number; shareOfLimit: number }[];
  totals: { awsMonthlyUsd: number; aiMonthlyUsd: number; speechMonthlyUsd: number; s3PeakWritesPerSecond: number };
}

/** Each measured job type scaled to a day of the modelled service. */
function scaled(results: ScenarioResult[]): Scaled[] {
  return results.flatMap((r) => {
    const day = unitsPerDay(r.title, r.units);
    return day
      ? [{ title: r.title, what: day.what, factor: day.units / r.units, counts: r.counts, providers: r.providers }]
      : [];
  });
}

function monthlyCost(s: Scaled, memoryMb: (fn: string) => number, routed: (fn: string) => boolean) {
  const t = totalsOf(s.counts, memoryMb);
  const month = s.factor * DAYS_PER_MONTH;
  const s3 = Object.values(s.counts.s3).flatMap((kinds) => Object.entries(kinds));
  const s3Writes = s3.filter(([kind]) => S3_WRITE_KINDS.test(kind)).reduce((n, [, k]) => n + k.calls, 0);
  const s3Reads = s3
    .filter(([kind]) => !S3_WRITE_KINDS.test(kind) && !S3_FREE_KINDS.test(kind))
    .reduce((n, [, k]) => n + k.calls, 0);
  const storedGb = s3.reduce((n, [, k]) => n + k.bytesIn, 0) / 1024 ** 3;
  const apiCalls = Object.entries(s.counts.lambda)
    .filter(([fn]) => routed(fn))
    .reduce((n, [, l]) => n + l.invocations, 0);
  const sqsRequests = t.sqsSends + (t.sqsReceives - t.sqsEmptyReceives) + t.sqsDeletes;
  return {
    lambda:
      month * ((t.lambdaInvocations / 1e6) * PRICES.lambdaPerMillionRequests + t.gbSeconds * PRICES.lambdaPerGbSecond),
    apiGateway: month * (apiCalls / 1e6) * PRICES.httpApiPerMillionRequests,
    dynamodb: month * ((t.wcu / 1e6) * PRICES.dynamoPerMillionWrites + (t.rcu / 1e6) * PRICES.dynamoPerMillionReads),
    s3Requests: month * ((s3Writes / 1000) * PRICES.s3PerThousandWrites + (s3Reads / 1000) * PRICES.s3PerThousandReads),
    s3Storage: s.factor * storedGb * STORED_DAYS * PRICES.s3PerGbMonth,
    sqs: month * (sqsRequests / 1e6) * PRICES.sqsPerMillionRequests,
  };
}

export function capacityModel(
  results: ScenarioResult[],
  memoryMb: (fn: string) => number,
  routed: (fn: string) => boolean,
  bound: (fn: string) => number | null = () => null,
): CapacityModel {
  const day = scaled(results);
  const fnDay = new Map<string, { invocations: number; billedMs: number }>();
  const partDay = new Map<string, number>();
  let s3WritesPerDay = 0;
  for (const s of day) {
    for (const [fn, l] of Object.entries(s.counts.lambda)) {
      const f = fnDay.get(fn) ?? { invocations: 0, billedMs: 0 };
      f.invocations += l.invocations * s.factor;
      f.billedMs += l.billedMs * s.factor;
      fnDay.set(fn, f);
    }
    for (const [shape, p] of Object.entries(s.counts.partitions))
      if (!shape.includes('<id>')) partDay.set(shape, (partDay.get(shape) ?? 0) + p.writes * s.factor);
    for (const kinds of Object.values(s.counts.s3))
      for (const [kind, k] of Object.entries(kinds))
        if (S3_WRITE_KINDS.test(kind)) s3WritesPerDay += k.calls * s.factor;
  }
  const jobTypes = day.map((s) => {
    const cost = monthlyCost(s, memoryMb, routed);
    return {
      title: s.title,
      what: s.what,
      monthlyUsd: cost,
      aiCalls: s.providers.ai * s.factor,
      speechCalls: s.providers.speech * s.factor,
    };
  });
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const awsMonthlyUsd = sum(jobTypes.map((j) => sum(Object.values(j.monthlyUsd))));
  const aiCallsPerDay = sum(jobTypes.map((j) => j.aiCalls));
  const speechMinutesPerDay = DAY.videos * DAY.videoMinutes;
  return {
    jobTypes,
    functions: [...fnDay.entries()]
      .map(([name, f]) => {
        const seconds = f.invocations ? f.billedMs / f.invocations / 1000 : 0;
        const rate = peakPerSecond(f.invocations);
        return {
          name,
          perDay: f.invocations,
          peakPerSecond: rate,
          seconds,
          concurrency: rate * seconds,
          bound: bound(name),
        };
      })
      .sort((a, b) => b.concurrency - a.concurrency),
    aiInFlight: peakPerSecond(aiCallsPerDay) * AI_CALL_SECONDS,
    partitions: [...partDay.entries()]
      .map(([shape, perDay]) => {
        const rate = peakPerSecond(perDay);
        // A shard shape (#<n>) spreads over its shards; every write is counted at 1 unit (these rows are small).
        const shards = shape.includes('#<n>') ? 16 : 1;
        return { shape, perDay, peakPerSecond: rate, shareOfLimit: rate / shards / PARTITION_WRITE_UNITS };
      })
      .sort((a, b) => b.peakPerSecond - a.peakPerSecond),
    totals: {
      awsMonthlyUsd,
      aiMonthlyUsd: aiCallsPerDay * DAYS_PER_MONTH * PRICES.aiPerCall,
      speechMonthlyUsd: speechMinutesPerDay * DAYS_PER_MONTH * PRICES.speechPerMinute,
      s3PeakWritesPerSecond: peakPerSecond(s3WritesPerDay),
    },
  };
}

const usd = (n: number) => `$${n.toFixed(n < 0.1 ? 3 : n < 10 ? 2 : 0)}`;
const num = (n: number, digits = 1) => (n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(digits));

/** The model as printed after the job tables. */
export function formatCapacityModel(model: CapacityModel): string {
  const out = [
    '',
    'Capacity and cost model: 1,000 teams a day (docs/capacity.md)',
    '-------------------------------------------------------------',
    `  a day: ${DAY.photos} photos, ${DAY.videos} videos of ${DAY.videoMinutes} min, ${DAY.lists} lists of ${DAY.listPages} pages, ` +
      `${DAY.claims} claims of ${DAY.itemsPerClaim} items each exported (Excel and PDF) and sent once; ` +
      `peak = ${PEAK_FACTOR} × the average of ${BUSY_SECONDS / 3600} busy hours`,
    '  Lambda at peak (billed time as measured on this machine: an upper bound)',
    ...model.functions
      .filter((f) => f.concurrency >= 0.01)
      .map(
        (f) =>
          `    ${f.name.padEnd(28)} ${num(f.perDay, 0).padStart(9)} a day  ${num(f.peakPerSecond, 2).padStart(7)}/s × ${f.seconds.toFixed(2)} s = ${num(f.concurrency, 1)} at once${f.bound ? ` (its queue's maximum concurrency: ${f.bound})` : ''}`,
      ),
    `  AI calls in flight at peak, each ${AI_CALL_SECONDS} s at the provider: ${num(model.aiInFlight, 1)} (on top of the units' own work above)`,
    `  shared DynamoDB partitions at peak (limit ${PARTITION_WRITE_UNITS} write units/s each; shards spread over 16)`,
    ...model.partitions.map(
      (p) =>
        `    ${p.shape.padEnd(40)} ${num(p.perDay, 0).padStart(9)} writes a day  ${num(p.peakPerSecond, 2).padStart(7)}/s  ${(p.shareOfLimit * 100).toFixed(2)} % of a partition's limit`,
    ),
    `  S3 writes at peak: ${num(model.totals.s3PeakWritesPerSecond, 1)}/s over the whole bucket (limit ${S3_PREFIX_WRITES}/s per prefix)`,
    '  a month at us-east-1 list prices',
    ...model.jobTypes.map(
      (j) =>
        `    ${j.title.padEnd(40)} ${j.what.padEnd(30)} ${Object.entries(j.monthlyUsd)
          .map(([k, v]) => `${k} ${usd(v)}`)
          .join(', ')}; AI calls ${num(j.aiCalls, 0)}/day, speech ${num(j.speechCalls, 0)}/day`,
    ),
    `    AWS total ${usd(model.totals.awsMonthlyUsd)} a month; apart: AI gateway ${usd(model.totals.aiMonthlyUsd)} ` +
      `(at ${usd(PRICES.aiPerCall)} a call), speech-to-text ${usd(model.totals.speechMonthlyUsd)} (at ${usd(PRICES.speechPerMinute)} a minute)`,
  ];
  return out.join('\n');
}
