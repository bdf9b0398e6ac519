/**
 * Queue workers: Powertools batch processing with partial batch failures, so
 * one bad message is retried (and eventually dead-lettered) without redoing
 * the rest of its batch. Every invocation stamps the worker heartbeat that
 * /api/health/pipeline reads, handles each message in the trace its
 * `traceparent` attribute names, and sends the outbound signals before it
 * returns (lib/observability/flush.ts).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { loadSecrets } from '../config';
import { endsInvocation } from '../faults/fault-points';
import { flushSignals } from '../observability/flush';
import { runInMessageTrace } from '../observability/job-trace';
import { logger } from '../observability/logger';
import { PING_BODY } from '../queue/worker-ping';
import { recordWorkerHeartbeat } from './heartbeat-store';

const HEARTBEAT_EVERY_MS = 30_000;

/**
 * Builds the Lambda handler of a queue worker: each record's body is parsed
 * as JSON and checked with `schema` (a malformed message is logged and
 * dropped, never retried), then handed to `handle`. A `handle` that throws
 * fails only its own record, which the queue delivers again (and, after the
 * queue's receive limit, dead-letters); the failure is logged at warn
 * level. The worker itself is declared in lib/background/functions.ts.
 *
 * @example
 * ```ts
 * // functions/workers/stages.ts
 * import { sqsWorker } from '../../lib/background/sqs-worker';
 * import '../../lib/pipelines'; // registers the pipelines this worker runs
 * import { handleStageMessage, stageMessage } from '../../lib/orchestrator/engine';
 *
 * export const handler = sqsWorker('stages', stageMessage, (message) => handleStageMessage(message));
 * ```
 */
export function sqsWorker<S extends z.ZodType>(
  name: string,
  schema: S,
  handle: (message: z.output<S>, record: SQSRecord) => Promise<void>,
) {
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord) => {
    // The watchdog's ping proves delivery from the queue to a worker; the heartbeat below records it.
    if (record.body === PING_BODY) return;
    let message: z.output<S>;
    try {
      message = schema.parse(JSON.parse(record.body));
    } catch (err) {
      // A malformed message can never succeed: log it and let it go rather than retry it into the DLQ.
      logger.error('dropping malformed queue message', {
        worker: name,
        message_id: record.messageId,
        error: String(err),
      });
      return;
    }
    try {
      await runInMessageTrace(record.messageAttributes, () => handle(message, record));
    } catch (err) {
      // A crash logs nothing (fault points end the invocation as one would).
      if (endsInvocation(err)) throw err;
      // Batch processing reports the failure to the queue only: without this line a message that stays hidden
      // until its visibility timeout (or goes to the DLQ) leaves no trace of why.
      logger.warn('queue message failed; the queue delivers it again', {
        worker: name,
        message_id: record.messageId,
        receive_count: Number(record.attributes?.ApproximateReceiveCount ?? 1),
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
      throw err;
    }
  };
  let lastHeartbeat = 0;
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // Deployed stages read secret settings from SSM first (lib/config/secrets.ts).
    await loadSecrets();
    // At most one heartbeat write per container every HEARTBEAT_EVERY_MS: it is a liveness signal, not a log.
    if (Date.now() - lastHeartbeat > HEARTBEAT_EVERY_MS) {
      lastHeartbeat = Date.now();
      await recordWorkerHeartbeat(name).catch((err) => logger.warn('worker heartbeat failed', { error: String(err) }));
    }
    try {
      return await processPartialResponse(event, recordHandler, processor, { context });
    } finally {
      await flushSignals();
    }
  };
}
