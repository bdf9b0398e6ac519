import * as z from 'zod';
import { queryBool } from '../http/schemas';

const roomName = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');
export const roomCreateBody = z.strictObject({ name: roomName });
export const roomRenameBody = z.strictObject({ name: roomName });
export const roomListQuery = z.object({ archived: queryBool(false) });

const roomCountsResponse = z.object({
  video: z.number().int(),
  photo: z.number().int(),
  audio: z.number().int(),
  items: z.number().int(),
  submitted: z.number().int(),
  unsubmitted: z.number().int(),
});

export const roomResponse = z.object({
  id: z.uuid(),
  claim_id: z.uuid(),
  team_id: z.string(),
  name: z.string(),
  is_archived: z.boolean(),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  counts: roomCountsResponse,
});
