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

const id = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');

const scope = z.discriminatedUnion(
  'scope',
  [
    z.strictObject({ scope: z.literal('assignment') }),
    z.strictObject({ scope: z.literal('location'), id }),
    z.strictObject({ scope: z.literal('group'), id }),
    z.strictObject({
      scope: z.literal('media'),
      ids: z.array(id).min(1, 'must name at least one media item').max(10_000, 'at most 10000 ids'),
    }),
  ],
  { error: "must be {scope: 'assignment'}, {scope: 'location', id}, {scope: 'group', id} or {scope: 'media', ids}" },
);

const target = z.discriminatedUnion(
  'mode',
  [
    z.strictObject({ mode: z.literal('new_claim') }),
    z.strictObject({ mode: z.literal('existing_claim'), claim_id: z.uuid('must be the claim’s id') }),
    z.strictObject({
      mode: z.literal('room'),
      room_id: z.uuid('must be the room’s id'),
      claim_id: z.uuid('must be the claim’s id').optional(),
    }),
  ],
  { error: "mode must be 'new_claim', 'existing_claim' (with claim_id) or 'room' (with room_id)" },
);

export const importBody = z.strictObject({
  assignment_id: id.describe('The capture source assignment to import from.'),
  target: target.describe(
    'new_claim: a claim numbered after the assignment’s reference; existing_claim: that claim; room: everything into that room.',
  ),
  select: z
    .array(scope)
    .max(500, 'at most 500 scopes')
    .optional()
    .describe('What to take (all of the assignment when absent or empty).'),
  exclude: z.array(scope).max(500, 'at most 500 scopes').optional().describe('What to leave out of the selection.'),
  filters: z
    .strictObject({
      types: z.array(z.enum(['photo', 'video', 'audio'])).optional(),
      submitted_only: z.boolean().optional(),
    })
    .optional(),
});
