/**
 * Counting HTTP proxies, one per emulator, between the service and the
 * emulators (localstack/runtime/service.js's `interpose`). Requests and answers pass
 * through with every header unchanged (the local S3 checks SigV4 signatures,
 * which cover the host), except that a DynamoDB request without
 * ReturnConsumedCapacity is asked for it (DynamoDB Local checks no
 * signatures), so the answer says what the request cost.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { type Capacity, computedCapacity, reportedCapacity, WRITE_OPERATIONS } from './dynamodb-capacity';
import { writtenPartitions } from './partitions';
import { classifyS3Request } from './s3-requests';
import type { CapacitySource, OpsTally } from './tally';

export type Emulator = 'dynamodb' | 's3' | 'sqs';

export interface CountingProxy {
  url: string;
  close(): Promise<void>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

const decoded = (body: Buffer, headers: IncomingHttpHeaders) =>
  headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;

function parseJson(body: Buffer): Record<string, any> | null {
  try {
    const value = JSON.parse(body.toString('utf8'));
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

/** Sends the request on to the emulator; resolves with its answer, not yet read. */
function forward(target: URL, req: IncomingMessage, headers: IncomingHttpHeaders, body?: Buffer) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
      resolve,
    );
    upstream.on('error', reject);
    // A client that goes away mid-request takes the emulator's request with it.
    req.on('close', () => {
      if (!req.complete) upstream.destroy();
    });
    if (body) upstream.end(body);
    else req.pipe(upstream);
  });
}

function fail(res: ServerResponse, err: unknown): void {
  if (res.headersSent) res.destroy();
  else {
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`counting proxy: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The capacity of one DynamoDB request, and how it was obtained. DynamoDB
 * Local reports batches, queries and one-item transactions as DynamoDB bills
 * them (transactions doubled), but for a transaction of several writes only
 * one item's units: those are computed per item, and never below its figure.
 */
function capacityOf(
  operation: string,
  request: Record<string, any>,
  answer: Record<string, any>,
): { capacity: Capacity; source: CapacitySource } {
  const reported = reportedCapacity(operation, answer.ConsumedCapacity);
  if (operation === 'TransactWriteItems' && (request.TransactItems?.length ?? 0) > 1) {
    const computed = computedCapacity(operation, request, answer);
    return {
      capacity: {
        ...computed,
        write: Math.max(computed.write, reported?.write ?? 0),
        gsiWrite: reported?.gsiWrite ?? 0,
      },
      source: 'computed per item',
    };
  }
  if (reported) return { capacity: reported, source: 'reported' };
  return { capacity: computedCapacity(operation, request, answer), source: 'computed' };
}

/**
 * A write refused by its condition (or a cancelled transaction) is still
 * billed: computed from the request. Other errors cost nothing.
 */
function refusedCapacity(
  operation: string,
  request: Record<string, any>,
  answer: Record<string, any>,
): { capacity: Capacity; source: CapacitySource } | null {
  const refused = /ConditionalCheckFailed|TransactionCanceled/.test(String(answer.__type ?? ''));
  if (!refused || !WRITE_OPERATIONS.has(operation)) return null;
  return { capacity: computedCapacity(operation, request, {}), source: 'computed, refused' };
}

function dynamoHandler(target: URL, tally: OpsTally) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const operation =
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() || 'unknown';
    let body = await readAll(req);
    const request = parseJson(body) ?? {};
    const headers = { ...req.headers };
    if (!request.ReturnConsumedCapacity || request.ReturnConsumedCapacity === 'NONE') {
      body = Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: 'INDEXES' }));
      headers['content-length'] = String(body.length);
    }
    const answer = await forward(target, req, headers, body);
    const answerBody = await readAll(answer);
    res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
    res.end(answerBody);
    const failed = (answer.statusCode ?? 500) >= 400;
    const parsed = parseJson(decoded(answerBody, answer.headers)) ?? {};
    // A write refused by its condition is billed as a write too.
    const refused = failed && /ConditionalCheckFailed|TransactionCanceled/.test(String(parsed.__type ?? ''));
    if (!failed || refused) tally.partitionWrites(writtenPartitions(operation, request));
    tally.dynamo(
      operation,
      failed ? refusedCapacity(operation, request, parsed) : capacityOf(operation, request, parsed),
      failed,
    );
  };
}

function s3Handler(target: URL, tally: OpsTally) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const request = classifyS3Request({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    let bytesIn = 0;
    let keys = 0;
    req.on('data', (chunk: Buffer) => {
      bytesIn += chunk.length;
      if (request.kind === 'DeleteObjects') keys += chunk.toString('utf8').split('<Key>').length - 1;
    });
    const answer = await forward(target, req, req.headers);
    let bytesOut = 0;
    answer.on('data', (chunk: Buffer) => {
      bytesOut += chunk.length;
    });
    // Counted when the client's side closes, also when it stops reading early (ffmpeg's range reads do).
    res.on('close', () => {
      if (!answer.complete) answer.destroy();
      tally.s3(request, { failed: (answer.statusCode ?? 500) >= 400, keys, bytesIn, bytesOut });
    });
    res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
    answer.pipe(res);
  };
}

/** An SQS request's action, its batch entries and its queue, in the JSON or the query protocol. */
export function sqsRequest(
  headers: IncomingHttpHeaders,
  body: string,
): { action: string; entries: number; queue: string | null } {
  const target = headers['x-amz-target'];
  if (typeof target === 'string') {
    const json = (() => {
      try {
        return JSON.parse(body || '{}');
      } catch {
        return {};
      }
    })();
    return {
      action: target.split('.').pop() as string,
      entries: Array.isArray(json.Entries) ? json.Entries.length : 1,
      queue: typeof json.QueueUrl === 'string' ? json.QueueUrl.split('/').pop() : (json.QueueName ?? null),
    };
  }
  const form = new URLSearchParams(body);
  const ids = [...form.keys()].filter((k) => /Entry\.\d+\.Id$/.test(k)).length;
  const queueUrl = form.get('QueueUrl');
  return {
    action: form.get('Action') ?? 'unknown',
    entries: ids || 1,
    queue: queueUrl ? (queueUrl.split('/').pop() ?? null) : form.get('QueueName'),
  };
}

/** Messages in a ReceiveMessage answer (JSON or XML). */
function receivedMessages(answer: string): number {
  const json = parseJson(Buffer.from(answer));
  if (json) return Array.isArray(json.Messages) ? json.Messages.length : 0;
  return answer.split('<Message>').length - 1;
}

const MESSAGE_ACTIONS = new Set(['SendMessage', 'SendMessageBatch', 'DeleteMessage', 'DeleteMessageBatch']);

const QUEUE_URL_ACTIONS = new Set(['GetQueueUrl', 'CreateQueue', 'ListQueues']);

/**
 * The answer with its queue URLs pointing at the proxy: the SDK sends a
 * queue's messages to its QueueUrl's host when the client was given no
 * endpoint of its own (the functions take theirs from AWS_ENDPOINT_URL_SQS).
 */
export function queueUrlsThrough(answer: string, proxyOrigin: string): string {
  const through = (url: string) => url.replace(/^https?:\/\/[^/]+/, proxyOrigin);
  const json = parseJson(Buffer.from(answer));
  if (!json) return answer.replace(/<QueueUrl>https?:\/\/[^/<]+/g, `<QueueUrl>${proxyOrigin}`);
  if (typeof json.QueueUrl === 'string') json.QueueUrl = through(json.QueueUrl);
  if (Array.isArray(json.QueueUrls)) json.QueueUrls = json.QueueUrls.map(through);
  return JSON.stringify(json);
}

function sqsHandler(target: URL, tally: OpsTally, self: { origin: string }) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readAll(req);
    const { action, entries, queue } = sqsRequest(req.headers, body.toString('utf8'));
    const answer = await forward(target, req, req.headers, body);
    let answerBody = await readAll(answer);
    const failed = (answer.statusCode ?? 500) >= 400;
    if (!failed && QUEUE_URL_ACTIONS.has(action)) {
      answerBody = Buffer.from(queueUrlsThrough(decoded(answerBody, answer.headers).toString('utf8'), self.origin));
      const headers = { ...answer.headers, 'content-length': String(answerBody.length) };
      delete headers['content-encoding'];
      delete headers['transfer-encoding'];
      res.writeHead(answer.statusCode ?? 200, headers);
    } else res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
    res.end(answerBody);
    const messages =
      action === 'ReceiveMessage'
        ? failed
          ? 0
          : receivedMessages(decoded(answerBody, answer.headers).toString('utf8'))
        : MESSAGE_ACTIONS.has(action)
          ? entries
          : 0;
    tally.sqs(action, { failed, messages, queue });
  };
}

/** Starts a counting proxy on a free port of 127.0.0.1 in front of `emulatorUrl`. */
export async function startCountingProxy(
  emulator: Emulator,
  emulatorUrl: string,
  tally: OpsTally,
): Promise<CountingProxy> {
  const target = new URL(emulatorUrl);
  const self = { origin: '' };
  const handle =
    emulator === 'dynamodb'
      ? dynamoHandler(target, tally)
      : emulator === 's3'
        ? s3Handler(target, tally)
        : sqsHandler(target, tally, self);
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => fail(res, err));
  });
  // Long uploads and long polls pass through: no server-side timeouts.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  self.origin = `http://127.0.0.1:${port}`;
  return {
    url: self.origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
