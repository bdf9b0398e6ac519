import * as z from 'zod';
import { defineRoute } from '../http/route';

const dashboardMetricsResponse = z.object({
  items_cataloged: z.number().int().describe('Live items (archived left out) of every finished job that has any.'),
  processing_seconds: z
    .number()
    .describe("Sum of those jobs' processing time (start to end of each job's last run), in seconds."),
  seconds_per_item: z
    .number()
    .nullable()
    .describe('processing_seconds / items_cataloged; null when there are no items.'),
});

export const dashboardRoutes = {
  metrics: defineRoute({
    name: 'getDashboardMetrics',
    method: 'GET',
    path: '/api/dashboard/metrics',
    auth: 'user',
    tag: 'dashboard',
    summary:
      "The team's cataloging throughput: items cataloged, processing seconds and seconds per item, over finished jobs that hold items (running jobs and jobs without items are left out).",
    handler: 'api/dashboard/get-dashboard-metrics',
    response: dashboardMetricsResponse,
  }),
};
