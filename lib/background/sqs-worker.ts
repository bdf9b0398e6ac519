/**
 * Queue workers: Powertools batch processing with partial batch failures, so
 * one bad message is retried (and eventually dead-lettered) without redoing
 * the rest of its batch. Every invocation stamps the worker heartbeat that
 * /api/health/pipeline reads.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { recordWorkerHeartbeat } from '../health/pipeline';
import { logger } from '../observability/logger';

export function sqsWorker<S extends z.ZodType>(name: string, schema: S, handle: (message: z.output<S>, record: SQSRecord) => Promise<void>) {
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord) => {
    let message: z.output<S>;
    try {
      message = schema.parse(JSON.parse(record.body));
    } catch (err) {
      // A malformed message can never succeed: log it and let it go rather than retry it into the DLQ.
      logger.error('dropping malformed queue message', { worker: name, message_id: record.messageId, error: String(err) });
      return;
    }
    await handle(message, record);
  };
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    await recordWorkerHeartbeat(name).catch((err) => logger.warn('worker heartbeat failed', { error: String(err) }));
    return processPartialResponse(event, recordHandler, processor, { context });
  };
}
