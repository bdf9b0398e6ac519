/**
 * Benchmark (a): a presigned multipart upload of a 1 GiB video in 16 MiB parts
 * through the local stack, as the browser does it (init → part URLs → PUT each
 * part straight to the bucket, 4 in flight → status → complete). Prints the
 * wall time, throughput, per-part PUT times and the API time per part, and
 * shows the API never touches the bytes: what the API calls send and receive
 * is a few KiB against 1 GiB sent to the bucket, and every part URL points at
 * the bucket, not the API.
 *
 * Run through `npm run bench` (tests/bench/run.js), which starts the stack.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteObjectsCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { newTeamMember, signLoginToken } from '../support/tokens';
import { bytes, emitResult, median, ms, printTable, quantile, requiredEnv, runBenchmark, seconds, sum } from './report';

const NAME = 'presigned-upload-1GiB';
const MIB = 1024 * 1024;
const TOTAL_SIZE = 1024 * MIB; // 1 GiB
const EXPECTED_CHUNK = 16 * MIB;
/** The spec's client upload concurrency. */
const PARTS_IN_FLIGHT = 4;
/** Part URLs asked for per call (the API allows up to 100). */
const URL_BATCH = 16;

interface ApiCall {
  what: string;
  ms: number;
  sent: number;
  received: number;
}

class Api {
  readonly calls: ApiCall[] = [];
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  /** One API request; its time and body sizes are recorded under `what` (null: setup, not counted). */
  async call<T = any>(
    what: string | null,
    method: string,
    path: string,
    body?: unknown,
    expectStatus = [200, 201],
  ): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const started = performance.now();
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      body: payload,
    });
    const text = await res.text();
    const elapsed = performance.now() - started;
    if (!expectStatus.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    if (what)
      this.calls.push({ what, ms: elapsed, sent: Buffer.byteLength(payload ?? ''), received: Buffer.byteLength(text) });
    return (text ? JSON.parse(text) : null) as T;
  }
}

async function main() {
  const base = requiredEnv('BENCH_SERVICE_URL');
  const secret = requiredEnv('CLAIMS_PLATFORM_JWT_SECRET');
  const bucketEndpoint = new URL(requiredEnv('AWS_ENDPOINT_URL_S3'));
  const s3 = new S3Client({ forcePathStyle: true });
  const bucket = requiredEnv('MEDIA_BUCKET');

  // Setup (not timed): a user, a claim and a room.
  const api = new Api(base, await signLoginToken(newTeamMember(), { secret }));
  await api.call(null, 'GET', '/api/auth/me');
  const claim = await api.call(null, 'POST', '/api/claims', { claim_number: `BENCH-${randomUUID().slice(0, 8)}` });
  const room = await api.call(null, 'POST', `/api/claims/${claim.id}/rooms`, { name: 'Kitchen' });

  // One random part reused for every PUT: the client stays cheap and never holds 1 GiB.
  const part = randomBytes(EXPECTED_CHUNK);
  const puts: { index: number; ms: number; size: number }[] = [];
  const urlHosts = new Set<string>();

  const started = performance.now();
  const init = await api.call('init', 'POST', '/api/uploads/init', {
    kind: 'video',
    filename: 'Bench walkthrough.mp4',
    room_id: room.id,
    total_size: TOTAL_SIZE,
  });
  if (init.chunk_size !== EXPECTED_CHUNK)
    throw new Error(`the API handed out chunk_size ${init.chunk_size}, expected ${EXPECTED_CHUNK}`);
  const partCount: number = init.part_count;
  const uploadId: string = init.upload_id;

  // Part URLs fetched a batch at a time, when the first part of the batch is due.
  const batches = new Map<number, Promise<Map<number, { url: string; size: number }>>>();
  const urlFor = async (index: number) => {
    const b = Math.floor(index / URL_BATCH);
    let batch = batches.get(b);
    if (!batch) {
      const indices = Array.from(
        { length: Math.min(URL_BATCH, partCount - b * URL_BATCH) },
        (_, i) => b * URL_BATCH + i,
      );
      batch = api
        .call('part-urls', 'POST', `/api/uploads/${uploadId}/part-urls`, { parts: indices })
        .then((r) => new Map(r.urls.map((u: any) => [u.index, u])));
      batches.set(b, batch);
    }
    const entry = (await batch).get(index);
    if (!entry) throw new Error(`no URL for part ${index}`);
    return entry;
  };

  let next = 0;
  const uploader = async () => {
    for (let index = next++; index < partCount; index = next++) {
      const { url, size } = await urlFor(index);
      urlHosts.add(new URL(url).host);
      const t = performance.now();
      const res = await fetch(url, { method: 'PUT', body: part.subarray(0, size) });
      await res.arrayBuffer();
      if (res.status !== 200 || !res.headers.get('etag')) throw new Error(`PUT part ${index}: ${res.status}`);
      puts.push({ index, ms: performance.now() - t, size });
    }
  };
  const putsStarted = performance.now();
  await Promise.all(Array.from({ length: PARTS_IN_FLIGHT }, uploader));
  const putPhaseMs = performance.now() - putsStarted;

  const status = await api.call('status', 'GET', `/api/uploads/${uploadId}`);
  if (status.received.length !== partCount)
    throw new Error(`status lists ${status.received.length} of ${partCount} parts`);
  const completeStarted = performance.now();
  const completed = await api.call('complete', 'POST', `/api/uploads/${uploadId}/complete`);
  const completeMs = performance.now() - completeStarted;
  const wallMs = performance.now() - started;

  // The object is whole in the bucket.
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const { Item: row } = await doc.send(
    new GetCommand({
      TableName: requiredEnv('TABLE_NAME'),
      Key: { pk: `UPLOAD#${uploadId}`, sk: 'UPLOAD' },
      ConsistentRead: true,
    }),
  );
  const key = String(row?.s3_key);
  const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  if (Number(head.ContentLength) !== TOTAL_SIZE) throw new Error(`assembled object is ${head.ContentLength} bytes`);

  // Figures.
  const apiMs = sum(api.calls.map((c) => c.ms));
  const apiSent = sum(api.calls.map((c) => c.sent));
  const apiReceived = sum(api.calls.map((c) => c.received));
  const bucketSent = sum(puts.map((p) => p.size));
  const putMs = puts.map((p) => p.ms);
  const byWhat = (what: string) => api.calls.filter((c) => c.what === what);
  const apiHost = new URL(base).host;
  const urlsAtBucket = [...urlHosts].every((h) => h === bucketEndpoint.host) && !urlHosts.has(apiHost);
  const bytesRatio = (apiSent + apiReceived) / bucketSent;
  const mibPerSecond = TOTAL_SIZE / MIB / (wallMs / 1000);

  printTable(
    `(a) presigned upload: 1 GiB video, ${partCount} × ${bytes(init.chunk_size)} parts, ${PARTS_IN_FLIGHT} in flight`,
    [
      ['total wall time (init → complete)', `${seconds(wallMs / 1000)}  (${mibPerSecond.toFixed(1)} MiB/s)`],
      ['PUT phase', `${seconds(putPhaseMs / 1000)}  (${(TOTAL_SIZE / MIB / (putPhaseMs / 1000)).toFixed(1)} MiB/s)`],
      [
        'per-part PUT median / p95 / max',
        `${ms(median(putMs))} / ${ms(quantile(putMs, 0.95))} / ${ms(Math.max(...putMs))}`,
      ],
      [
        'API time per part',
        `${ms(apiMs / partCount)}  (${ms(apiMs)} in ${api.calls.length} API calls over ${partCount} parts)`,
      ],
      ['  init', ms(sum(byWhat('init').map((c) => c.ms)))],
      [
        `  part-urls (${byWhat('part-urls').length} × ${URL_BATCH})`,
        `${ms(sum(byWhat('part-urls').map((c) => c.ms)))} (median ${ms(median(byWhat('part-urls').map((c) => c.ms)))} per call)`,
      ],
      ['  status', ms(sum(byWhat('status').map((c) => c.ms)))],
      ['  complete (assembles 1 GiB in S3)', ms(completeMs)],
      ['API time per part without complete', ms((apiMs - completeMs) / partCount)],
      ['bytes to/from the API (bodies)', `${bytes(apiSent)} sent, ${bytes(apiReceived)} received`],
      ['bytes to the bucket', `${bytes(bucketSent)} (${puts.length} PUTs)`],
      ['API bytes / bucket bytes', bytesRatio.toExponential(2)],
      [
        'part URLs point at',
        `${[...urlHosts].join(', ')} (bucket ${bucketEndpoint.host}, API ${apiHost}) → ${urlsAtBucket ? 'bucket only' : 'NOT ONLY THE BUCKET'}`,
      ],
      ['job created', `${completed.id} (${completed.status})`],
    ],
  );

  // Clean up: let the probe worker finish with the object, then delete the job's prefix.
  await probeQueueDrained();
  const prefix = key.slice(0, key.indexOf('/media/') + 1);
  let deleted = 0;
  for (;;) {
    const { Contents = [] } = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    if (Contents.length === 0) break;
    await s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: Contents.map((o) => ({ Key: o.Key as string })) },
      }),
    );
    deleted += Contents.length;
  }
  process.stdout.write(`  cleanup: deleted ${deleted} object(s) under ${prefix}\n`);

  const apiUntouched = urlsAtBucket && bytesRatio < 1e-4;
  emitResult({
    name: NAME,
    pass: apiUntouched,
    summary: {
      wall: seconds(wallMs / 1000),
      'MiB/s': mibPerSecond.toFixed(1),
      'PUT p50/p95': `${ms(median(putMs))} / ${ms(quantile(putMs, 0.95))}`,
      'API/part': ms(apiMs / partCount),
      'API bytes': `${bytes(apiSent + apiReceived)} vs ${bytes(bucketSent)} to bucket`,
      'API touches bytes': apiUntouched ? 'no' : 'YES',
    },
  });
  s3.destroy();
  doc.destroy();
}

/** Waits (up to 60 s) until the probe queue of the bench stage is empty. */
async function probeQueueDrained() {
  const sqs = new SQSClient({});
  try {
    const { QueueUrl } = await sqs.send(
      new GetQueueUrlCommand({ QueueName: `${requiredEnv('QUEUE_NAME_PREFIX')}probe` }),
    );
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      if (
        Number(Attributes.ApproximateNumberOfMessages ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) ===
        0
      )
        return;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    sqs.destroy();
  }
}

runBenchmark(NAME, main);
