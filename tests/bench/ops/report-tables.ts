/**
 * The operations benchmark's figures: one table per job type (DynamoDB
 * operations and capacity units, S3 requests by kind and origin, SQS actions,
 * Lambda invocations with billed time and GB-seconds), totals per unit of the
 * job, and the same as JSON for documents derived from a run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gbSeconds } from './lambda-lines';
import type { ScenarioResult } from './measure';
import type { OpsCounts } from './tally';

export interface Totals {
  dynamoCalls: number;
  rcu: number;
  wcu: number;
  gsiWcu: number;
  s3Requests: number;
  s3ServiceRequests: number;
  sqsSends: number;
  sqsReceives: number;
  sqsEmptyReceives: number;
  sqsDeletes: number;
  lambdaInvocations: number;
  billedMs: number;
  gbSeconds: number;
}

const sumOf = <T>(values: T[], of: (v: T) => number) => values.reduce((n, v) => n + of(v), 0);
const round = (n: number) => Math.round(n * 1000) / 1000;

export function totalsOf(counts: OpsCounts, memoryMb: (fn: string) => number): Totals {
  const dynamo = Object.values(counts.dynamodb);
  const s3 = Object.entries(counts.s3).flatMap(([origin, kinds]) =>
    Object.values(kinds).map((t) => ({ origin, calls: t.calls })),
  );
  const sqs = (actions: string[]) => sumOf(actions, (a) => counts.sqs[a]?.messages ?? 0);
  const lambda = Object.entries(counts.lambda);
  return {
    dynamoCalls: sumOf(dynamo, (t) => t.calls),
    rcu: round(sumOf(dynamo, (t) => t.rcu)),
    wcu: round(sumOf(dynamo, (t) => t.wcu)),
    gsiWcu: round(sumOf(dynamo, (t) => t.gsiWcu)),
    s3Requests: sumOf(s3, (t) => t.calls),
    s3ServiceRequests: sumOf(
      s3.filter((t) => t.origin === 'service'),
      (t) => t.calls,
    ),
    sqsSends: sqs(['SendMessage', 'SendMessageBatch']),
    sqsReceives: counts.sqs.ReceiveMessage?.calls ?? 0,
    sqsEmptyReceives: counts.sqs.ReceiveMessage?.empty ?? 0,
    sqsDeletes: sqs(['DeleteMessage', 'DeleteMessageBatch']),
    lambdaInvocations: sumOf(lambda, ([, t]) => t.invocations),
    billedMs: sumOf(lambda, ([, t]) => t.billedMs),
    gbSeconds: round(sumOf(lambda, ([fn, t]) => gbSeconds(t.billedMs, memoryMb(fn)))),
  };
}

function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) => `    ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')}`)
    .join('\n');
}

const fixed = (n: number, digits = 1) => (Number.isInteger(n) ? String(n) : n.toFixed(digits));
const sorted = <T>(record: Record<string, T>) => Object.entries(record).sort(([a], [b]) => a.localeCompare(b));

/**
 * Partitions no id tells apart (the shape has no <id>: a constant, a day, an hour or a shard number), most written
 * first: every job, team or claim of the service writes the same ones.
 */
function sharedPartitions(counts: OpsCounts) {
  return Object.entries(counts.partitions)
    .filter(([shape]) => !shape.includes('<id>'))
    .sort(([, a], [, b]) => b.writes - a.writes);
}

/** The table of one job type, as printed. */
export function formatScenario(r: ScenarioResult, memoryMb: (fn: string) => number): string {
  const { counts } = r;
  const t = totalsOf(counts, memoryMb);
  const out: string[] = [];
  const title = `(l) AWS operations: ${r.title} (measured ${r.seconds.toFixed(1)} s)`;
  out.push('', title, '-'.repeat(title.length), ...r.notes.map((n) => `  ${n}`));

  out.push('  DynamoDB');
  out.push(
    table(
      ['operation', 'calls', 'errors', 'RCU', 'WCU', 'of which GSI WCU', 'capacity from'],
      [
        ...sorted(counts.dynamodb).map(([op, d]) => [
          op,
          d.calls,
          d.errors,
          fixed(d.rcu),
          fixed(d.wcu),
          fixed(d.gsiWcu),
          sorted(d.sources)
            .map(([source, n]) => `${source} ${n}`)
            .join(', ') || '-',
        ]),
        ['total', t.dynamoCalls, '', fixed(t.rcu), fixed(t.wcu), fixed(t.gsiWcu), ''],
      ],
    ),
  );

  out.push(
    '  S3 requests (service: signed by the functions; presigned: a URL the service presigned, used by the client or by a tool such as ffmpeg; browser-post: a form upload)',
  );
  const s3Rows = sorted(counts.s3).flatMap(([origin, kinds]) =>
    sorted(kinds).map(([kind, s]) => [
      kind,
      origin,
      s.calls,
      s.errors,
      s.keys || '',
      (s.bytesIn / 1024 / 1024).toFixed(1),
      (s.bytesOut / 1024 / 1024).toFixed(1),
    ]),
  );
  out.push(
    table(
      ['request', 'by', 'calls', 'errors', 'keys', 'MiB in', 'MiB out'],
      [...s3Rows, ['total', '', t.s3Requests, '', '', '', '']],
    ),
  );

  out.push('  SQS');
  out.push(
    table(
      ['action', 'calls', 'messages', 'empty'],
      sorted(counts.sqs).map(([action, q]) => [
        action,
        q.calls,
        q.messages,
        action === 'ReceiveMessage' ? q.empty : '',
      ]),
    ),
  );
  const queues = sorted(counts.sqsQueues).map(([queue, actions]) => [
    queue,
    ...['SendMessage', 'SendMessageBatch', 'ReceiveMessage', 'DeleteMessageBatch', 'DeleteMessage'].map(
      (a) => actions[a] ?? '',
    ),
  ]);
  if (queues.length)
    out.push(
      table(['messages by queue', 'sent', 'sent in batches', 'received', 'deleted in batches', 'deleted'], queues),
    );

  out.push('  Lambda (billed time as serverless offline measures it on this machine)');
  out.push(
    table(
      ['function', 'invocations', 'billed ms', 'memory MB', 'GB-s'],
      [
        ...sorted(counts.lambda).map(([fn, l]) => [
          fn,
          l.invocations,
          l.billedMs,
          memoryMb(fn),
          gbSeconds(l.billedMs, memoryMb(fn)).toFixed(2),
        ]),
        ['total', t.lambdaInvocations, t.billedMs, '', t.gbSeconds.toFixed(2)],
      ],
    ),
  );

  const shared = sharedPartitions(counts);
  if (shared.length) {
    out.push(
      '  Shared partitions written (no id in the key: every job, team and claim writes the same ones; <n> a shard)',
    );
    out.push(
      table(
        ['partition (ids masked)', 'writes', 'distinct values'],
        shared.map(([shape, p]) => [shape, p.writes, p.distinct]),
      ),
    );
  }

  const per = (n: number) => fixed(n / r.units, 3);
  out.push(
    `  per ${r.unit} (${r.units}): DynamoDB ${per(t.dynamoCalls)} calls, ${per(t.rcu)} RCU, ${per(t.wcu)} WCU; ` +
      `S3 ${per(t.s3Requests)} requests (${per(t.s3ServiceRequests)} by the service); ` +
      `SQS ${per(t.sqsSends)} sent, ${per(t.sqsReceives - t.sqsEmptyReceives)} non-empty receives, ${per(t.sqsDeletes)} deleted; ` +
      `Lambda ${per(t.lambdaInvocations)} invocations, ${per(t.gbSeconds)} GB-s; ` +
      `AI gateway ${per(r.providers.ai)} requests, speech-to-text ${per(r.providers.speech)}`,
  );
  return out.join('\n');
}

/** The run's figures as JSON: each job type's counts, totals and totals per unit. */
export function writeJson(
  file: string,
  results: ScenarioResult[],
  memoryMb: (fn: string) => number,
  method: Record<string, string>,
  capacity: unknown,
): void {
  const scenarios = results.map((r) => {
    const totals = totalsOf(r.counts, memoryMb);
    const perUnit = Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, round(v / r.units)]));
    const lambda = Object.fromEntries(
      Object.entries(r.counts.lambda).map(([fn, l]) => [
        fn,
        { ...l, memoryMb: memoryMb(fn), gbSeconds: round(gbSeconds(l.billedMs, memoryMb(fn))) },
      ]),
    );
    return { ...r, counts: { ...r.counts, lambda }, totals, perUnit };
  });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), method, scenarios, capacity }, null, 2)}\n`,
  );
}
