import * as z from 'zod';
import { defineRoute } from '../http/route';

export const healthRoutes = {
  health: defineRoute({
    name: 'health',
    method: 'GET',
    path: '/health',
    auth: 'none',
    tag: 'health',
    summary: 'Liveness and the vision model in use.',
    handler: 'api/health/get-health',
    response: z.object({ status: z.literal('ok'), model: z.string() }),
  }),
  pipeline: defineRoute({
    name: 'pipelineHealth',
    method: 'GET',
    path: '/api/health/pipeline',
    auth: 'none',
    tag: 'health',
    summary: 'Queue mode, worker liveness and queued work.',
    handler: 'api/health/get-pipeline-health',
    response: z.object({
      mode: z.enum(['worker', 'in-process-fallback', 'in-process']),
      worker_alive: z.boolean(),
      worker_last_seen_at: z.string().nullable(),
      queued_jobs: z.number().int(),
    }),
  }),
};
