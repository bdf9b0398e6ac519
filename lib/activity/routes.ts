import * as z from 'zod';
import { defineRoute } from '../http/route';
import { pageQuery, uuid } from '../http/schemas';

export const activityEntryResponse = z.object({
  id: z.uuid(),
  team_id: z.string(),
  user_id: z.string(),
  user_name: z.string(),
  action_type: z.string(),
  action_label: z.string(),
  target: z.string(),
  entity_type: z.string().nullable(),
  entity_id: z.string().nullable(),
  snapshot: z.record(z.string(), z.unknown()).nullable(),
  restorable: z.boolean(),
  restored_at: z.string().nullable(),
  restored_by_user_id: z.string().nullable(),
  impersonated_by: z
    .string()
    .nullable()
    .optional()
    .describe('When an admin acted through an impersonation token: who really acted (their external id).'),
  created_at: z.string(),
});

export const activityRoutes = {
  list: defineRoute({
    name: 'listActivity',
    method: 'GET',
    path: '/api/activity',
    auth: 'user',
    tag: 'activity',
    summary: "The team's activity feed, newest first; pass next_cursor back as cursor for the next page.",
    handler: 'api/activity/list-activity',
    query: pageQuery,
    response: z.object({ items: z.array(activityEntryResponse), next_cursor: z.string().nullable() }),
  }),
  restore: defineRoute({
    name: 'restoreActivity',
    method: 'POST',
    path: '/api/activity/{log_id}/restore',
    auth: 'actor',
    tag: 'activity',
    summary: 'Undo a restorable action (once).',
    handler: 'api/activity/restore-activity',
    params: z.object({ log_id: uuid() }),
    errors: [400, 404, 409],
    response: z.object({ restored: z.boolean(), entry: activityEntryResponse }),
  }),
};
