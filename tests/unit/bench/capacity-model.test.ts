/**
 * Covers: tests/bench/ops/capacity-model.ts — one job type's counts scaled to
 * a day of 1,000 teams: Lambda concurrency at peak by Little's law, the
 * writes a second to a shared partition against DynamoDB's per-partition
 * limit (spread over the shards of a sharded one), and a month's bill.
 */
import { capacityModel, DAY, PRICES } from '../../bench/ops/capacity-model';
import type { ScenarioResult } from '../../bench/ops/measure';

const photoJob: ScenarioResult = {
  title: '50-photo job',
  unit: 'photo',
  units: 50,
  seconds: 40,
  notes: [],
  providers: { ai: 10, speech: 0 },
  counts: {
    dynamodb: { UpdateItem: { calls: 100, errors: 0, rcu: 0, wcu: 200, gsiRcu: 0, gsiWcu: 50, sources: {} } },
    s3: { service: { PutObject: { calls: 50, errors: 0, keys: 0, bytesIn: 50 * 1024 ** 2, bytesOut: 0 } } },
    sqs: {},
    sqsQueues: {},
    lambda: {
      photoWorker: { invocations: 50, billedMs: 50_000, durationMs: 50_000 },
      getJob: { invocations: 20, billedMs: 2_000, durationMs: 2_000 },
    },
    partitions: {
      'activepk=ACTIVE': { writes: 100, values: ['ACTIVE'], distinct: 1 },
      'pk=JOBTOTALS#<n>': { writes: 16, values: ['JOBTOTALS#1'], distinct: 1 },
      'pk=JOB#<id>': { writes: 500, values: ['JOB#x'], distinct: 1 },
    },
  },
};

const memoryMb = (fn: string) => (fn === 'photoWorker' ? 1536 : 1024);
const model = capacityModel([photoJob], memoryMb, (fn) => fn === 'getJob');
const jobsPerDay = DAY.photos / 50;
const peak = (perDay: number) => (perDay * 2) / (10 * 3600);

it('gives each function the concurrency its peak rate and duration need', () => {
  const photo = model.functions.find((f) => f.name === 'photoWorker');
  expect(photo?.perDay).toBe(50 * jobsPerDay);
  expect(photo?.seconds).toBe(1);
  expect(photo?.concurrency).toBeCloseTo(peak(50 * jobsPerDay) * 1);
  expect(model.functions[0].name).toBe('photoWorker');
});

it('rates only the partitions no id tells apart, a sharded one over its 16 shards', () => {
  expect(model.partitions.map((p) => p.shape)).toEqual(['activepk=ACTIVE', 'pk=JOBTOTALS#<n>']);
  const [active, totals] = model.partitions;
  expect(active.shareOfLimit).toBeCloseTo(peak(100 * jobsPerDay) / 1000);
  expect(totals.shareOfLimit).toBeCloseTo(peak(16 * jobsPerDay) / 16 / 1000);
});

it("prices a month of the day's jobs, with the AI calls apart", () => {
  const [photos] = model.jobTypes;
  const month = jobsPerDay * 30;
  expect(photos.monthlyUsd.lambda).toBeCloseTo(
    month * ((70 / 1e6) * PRICES.lambdaPerMillionRequests + (50 * 1.5 + 20 * 0.1) * PRICES.lambdaPerGbSecond),
  );
  expect(photos.monthlyUsd.apiGateway).toBeCloseTo(month * (20 / 1e6) * PRICES.httpApiPerMillionRequests);
  expect(photos.monthlyUsd.dynamodb).toBeCloseTo(month * (200 / 1e6) * PRICES.dynamoPerMillionWrites);
  expect(photos.monthlyUsd.s3Requests).toBeCloseTo(month * (50 / 1000) * PRICES.s3PerThousandWrites);
  expect(photos.monthlyUsd.s3Storage).toBeCloseTo(jobsPerDay * (50 / 1024) * 30 * PRICES.s3PerGbMonth);
  expect(photos.aiCalls).toBe(10 * jobsPerDay);
  expect(model.totals.aiMonthlyUsd).toBeCloseTo(10 * jobsPerDay * 30 * PRICES.aiPerCall);
});
