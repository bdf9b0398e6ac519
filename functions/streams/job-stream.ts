/**
 * GET /api/jobs/{id}/stream behind a Lambda Function URL with response
 * streaming (API Gateway HTTP APIs cannot stream). The job id in the path is
 * the credential (capability URL). Locally, localstack/runtime/stream-server.js calls
 * this same handler with a Node ServerResponse as the stream.
 */
import type { ServerResponse } from 'node:http';
import { loadSecrets } from '../../lib/config';
import { isUuid } from '../../lib/http/schemas';
import { flushSignals } from '../../lib/observability/flush';
import {
  acquireStreamSlot,
  SSE_HEADERS,
  formatSseEvent,
  streamJobEvents,
  TOO_MANY_STREAMS,
} from '../../lib/jobs/stream-service';

interface ResponseStream {
  write(chunk: string): unknown;
  end(): void;
  destroyed?: boolean;
  writableEnded?: boolean;
}
type Meta = { statusCode: number; headers: Record<string, string> };
interface LambdaStreamingRuntime {
  streamifyResponse(fn: (event: { rawPath?: string }, stream: ResponseStream) => Promise<void>): unknown;
  HttpResponseStream: { from(stream: ResponseStream, meta: Meta): ResponseStream };
}

/**
 * The streaming API exists inside the Lambda Node.js runtime only (other
 * libraries may define a global awslambda for their own purposes).
 */
const candidate = (globalThis as { awslambda?: Partial<LambdaStreamingRuntime> }).awslambda;
const runtime = typeof candidate?.streamifyResponse === 'function' ? (candidate as LambdaStreamingRuntime) : undefined;

function open(stream: ResponseStream, meta: Meta): ResponseStream {
  if (runtime) return runtime.HttpResponseStream.from(stream, meta);
  const response = stream as unknown as ServerResponse;
  response.writeHead(meta.statusCode, meta.headers);
  response.flushHeaders();
  return stream;
}

export async function streamJob(event: { rawPath?: string }, responseStream: ResponseStream): Promise<void> {
  await loadSecrets();
  const jobId = /^\/api\/jobs\/([^/]+)\/stream\/?$/.exec(event.rawPath ?? '')?.[1] ?? '';
  if (!isUuid(jobId)) {
    const stream = open(responseStream, { statusCode: 404, headers: SSE_HEADERS });
    stream.write(formatSseEvent('error', { detail: 'Job not found' }));
    stream.end();
    return;
  }
  const slot = await acquireStreamSlot(jobId);
  if (!slot) {
    const stream = open(responseStream, {
      statusCode: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '5', 'cache-control': 'no-store' },
    });
    stream.write(JSON.stringify({ detail: TOO_MANY_STREAMS }));
    stream.end();
    return;
  }
  try {
    const stream = open(responseStream, { statusCode: 200, headers: SSE_HEADERS });
    await streamJobEvents(jobId, {
      write: (chunk) => stream.write(chunk),
      closed: () => Boolean(stream.destroyed || stream.writableEnded),
    });
    stream.end();
  } finally {
    await slot.release();
    await flushSignals();
  }
}

export const handler = runtime ? runtime.streamifyResponse(streamJob) : streamJob;
