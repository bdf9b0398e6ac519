/**
 * GET /api/jobs/{id}/stream behind a Lambda Function URL with response
 * streaming (API Gateway HTTP APIs cannot stream). The job id in the path is
 * the credential (capability URL). Locally, localstack/stream-server.js calls
 * this same handler with a Node ServerResponse as the stream.
 */
import type { ServerResponse } from 'node:http';
import { isUuid } from '../../lib/http/schemas';
import { SSE_HEADERS, sseEvent, streamJobEvents } from '../../lib/jobs/stream';

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
  const jobId = /^\/api\/jobs\/([^/]+)\/stream\/?$/.exec(event.rawPath ?? '')?.[1] ?? '';
  const stream = open(responseStream, { statusCode: isUuid(jobId) ? 200 : 404, headers: SSE_HEADERS });
  if (!isUuid(jobId)) {
    stream.write(sseEvent('error', { detail: 'Job not found' }));
  } else {
    await streamJobEvents(jobId, { write: (chunk) => stream.write(chunk), closed: () => Boolean(stream.destroyed || stream.writableEnded) });
  }
  stream.end();
}

export const handler = runtime ? runtime.streamifyResponse(streamJob) : streamJob;
