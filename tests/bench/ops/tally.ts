/**
 * The counters of the operations benchmark: what the service asked of
 * DynamoDB, S3 and SQS (counted by the proxies) and of Lambda (counted from
 * serverless offline's output), reset before each measured phase.
 */
import type { Capacity } from './dynamodb-capacity';
import type { LambdaInvocation } from './lambda-lines';
import { partitionShape, type WrittenPartition } from './partitions';
import type { S3Request } from './s3-requests';

/** How an operation's capacity was obtained. */
export type CapacitySource = 'reported' | 'computed' | 'computed per item' | 'computed, refused';

interface DynamoTally {
  calls: number;
  errors: number;
  rcu: number;
  wcu: number;
  gsiRcu: number;
  gsiWcu: number;
  /** Calls whose capacity came each way. */
  sources: Partial<Record<CapacitySource, number>>;
}

interface S3Tally {
  calls: number;
  errors: number;
  /** Keys named in DeleteObjects requests. */
  keys: number;
  bytesIn: number;
  bytesOut: number;
}

interface SqsTally {
  calls: number;
  errors: number;
  /** Messages sent, received or deleted (one per plain call; the entries of a batch). */
  messages: number;
  /** ReceiveMessage calls answered with no message. */
  empty: number;
}

interface PartitionTally {
  /** Writes that landed in a partition of this shape. */
  writes: number;
  /** The distinct partitions behind the shape (at most DISTINCT_KEPT listed; `distinct` counts them all). */
  values: string[];
  distinct: number;
}

/** Distinct values kept per shape: enough to tell a shared partition (a few) from a per-entity one. */
const DISTINCT_KEPT = 64;

interface LambdaTally {
  invocations: number;
  billedMs: number;
  durationMs: number;
}

export interface OpsCounts {
  dynamodb: Record<string, DynamoTally>;
  /** origin → request kind → figures */
  s3: Record<string, Record<string, S3Tally>>;
  sqs: Record<string, SqsTally>;
  /** queue name → action → messages */
  sqsQueues: Record<string, Record<string, number>>;
  lambda: Record<string, LambdaTally>;
  /** partition shape (ids masked) → writes */
  partitions: Record<string, PartitionTally>;
}

/** The record's entry for `key`, made first when absent. */
function entry<T>(record: Record<string, T>, key: string, make: () => T): T {
  if (!(key in record)) record[key] = make();
  return record[key];
}

const empty = (): OpsCounts => ({ dynamodb: {}, s3: {}, sqs: {}, sqsQueues: {}, lambda: {}, partitions: {} });

export class OpsTally {
  private counts = empty();
  /** Grows with every counted request or invocation but an empty receive (the queue delivery's idle polls). */
  activity = 0;

  reset(): void {
    this.counts = empty();
  }

  /** A copy of the counts so far. */
  snapshot(): OpsCounts {
    return structuredClone(this.counts);
  }

  dynamo(operation: string, result: { capacity: Capacity; source: CapacitySource } | null, failed: boolean): void {
    const t = entry<DynamoTally>(this.counts.dynamodb, operation, () => ({
      calls: 0,
      errors: 0,
      rcu: 0,
      wcu: 0,
      gsiRcu: 0,
      gsiWcu: 0,
      sources: {},
    }));
    t.calls++;
    this.activity++;
    if (failed) t.errors++;
    if (!result) return;
    t.rcu += result.capacity.read;
    t.wcu += result.capacity.write;
    t.gsiRcu += result.capacity.gsiRead;
    t.gsiWcu += result.capacity.gsiWrite;
    t.sources[result.source] = (t.sources[result.source] ?? 0) + 1;
  }

  /** The partitions one write request wrote (./partitions.ts). */
  partitionWrites(written: WrittenPartition[]): void {
    for (const partition of written) {
      const t = entry(this.counts.partitions, partitionShape(partition), () => ({
        writes: 0,
        values: [],
        distinct: 0,
      }));
      t.writes++;
      if (t.values.includes(partition.value)) continue;
      t.distinct++;
      if (t.values.length < DISTINCT_KEPT) t.values.push(partition.value);
    }
  }

  s3(request: S3Request, figures: { failed: boolean; keys: number; bytesIn: number; bytesOut: number }): void {
    const byKind = entry(this.counts.s3, request.origin, () => ({}));
    const t = entry(byKind, request.kind, () => ({ calls: 0, errors: 0, keys: 0, bytesIn: 0, bytesOut: 0 }));
    t.calls++;
    this.activity++;
    if (figures.failed) t.errors++;
    t.keys += figures.keys;
    t.bytesIn += figures.bytesIn;
    t.bytesOut += figures.bytesOut;
  }

  sqs(action: string, figures: { failed: boolean; messages: number; queue: string | null }): void {
    const t = entry(this.counts.sqs, action, () => ({ calls: 0, errors: 0, messages: 0, empty: 0 }));
    t.calls++;
    if (figures.failed) t.errors++;
    t.messages += figures.messages;
    if (action === 'ReceiveMessage' && !figures.failed && figures.messages === 0) t.empty++;
    else this.activity++;
    if (figures.queue && figures.messages > 0) {
      const queue = entry<Record<string, number>>(this.counts.sqsQueues, figures.queue, () => ({}));
      queue[action] = (queue[action] ?? 0) + figures.messages;
    }
  }

  lambda(invocation: LambdaInvocation): void {
    const t = entry(this.counts.lambda, invocation.functionKey, () => ({ invocations: 0, billedMs: 0, durationMs: 0 }));
    t.invocations++;
    this.activity++;
    t.billedMs += invocation.billedMs;
    t.durationMs += invocation.durationMs;
  }
}
