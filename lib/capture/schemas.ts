/** Request and answer shapes of the capture source routes (spec: Capture source integration). */
import * as z from 'zod';

export const connectBody = z.strictObject({
  api_token: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(1000, 'must be at most 1000 characters')
    .describe('The organisation’s API token, pasted from the capture source. Stored; never answered.'),
});

const connectionResponse = z.object({
  id: z.string(),
  provider: z.literal('capture_source'),
  external_account_id: z.string().describe('The capture source organisation’s id.'),
  external_account_name: z.string(),
  token_owner: z.string().describe('Who made the token, as the capture source says.'),
  connected_by_user_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const connectionsResponse = z.object({
  connections: z.array(connectionResponse),
  contents_capture_available: z
    .boolean()
    .describe('False when this deployment has no capture source configured (CAPTURE_SOURCE_API_BASE_URL).'),
});

export const connectResponse = connectionResponse.extend({
  replaced: z.boolean().describe('True when the team’s earlier connection was replaced.'),
});

export const connectionParams = z.object({ id: z.uuid() });
export const teamParams = connectionParams.extend({ tid: z.string().min(1).max(200) });
export const assignmentParams = teamParams.extend({ aid: z.string().min(1).max(200) });
export const cursorQuery = z.object({
  cursor: z.string().max(2000).optional().describe('next_cursor of the previous page; absent for the first.'),
});

const page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.'),
  });

export const teamsResponse = page(z.object({ id: z.string(), name: z.string() }));
export const assignmentsResponse = page(
  z.object({
    id: z.string(),
    reference: z.string().describe('The claim number the visit was for (becomes the claim number on import).'),
    title: z.string(),
    status: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export const treeResponse = z.object({
  assignment: z.object({ id: z.string(), reference: z.string(), title: z.string() }),
  locations: z.array(
    z.object({ id: z.string(), name: z.string(), groups: z.array(z.object({ id: z.string(), name: z.string() })) }),
  ),
});
export const mediaResponse = page(
  z.object({
    id: z.string(),
    type: z.enum(['photo', 'video', 'audio']),
    location_id: z.string().nullable(),
    group_id: z.string().nullable(),
    filename: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    captured_at: z.string().nullable(),
    synced: z.boolean(),
    submitted: z.boolean(),
    submission_id: z.string().nullable(),
    thumbnail_url: z.string().nullable().describe('A presigned URL of the capture source, passed through (an hour).'),
  }),
);
