/** Request, answer and queue message shapes of the claims platform send (spec: Claims; Claims platform send). */
import * as z from 'zod';

const optionalId = z.string().trim().max(200).nullish();

export const claimsPlatformSendBody = z.strictObject({
  room_ids: z
    .array(z.string().min(1))
    .max(500)
    .optional()
    .describe('The rooms whose items go; absent or empty: every active room of the claim.'),
  shopping_profile_id: optionalId.describe('From claims-platform-profiles; blank: the platform default.'),
  depreciation_profile_id: optionalId.describe('From claims-platform-profiles; blank: the platform default.'),
});

export const claimsPlatformQuoteBody = claimsPlatformSendBody.pick({ room_ids: true });

export const claimsPlatformQuoteResponse = z.object({
  item_count: z
    .number()
    .int()
    .describe('Items the send would carry: active, not yet submitted, in the selected rooms.'),
  credits: z.number().int(),
  credit_cost_per_item: z.number(),
  already_submitted: z.number().int(),
  enterprise: z.boolean(),
  training: z.boolean(),
});

const profile = z.object({ id: z.string(), name: z.string(), is_default: z.boolean() });

export const claimsPlatformProfilesResponse = z.object({
  shopping_profiles: z.array(profile),
  depreciation_profiles: z.array(profile),
});

export const submissionResponse = z.object({
  id: z.string(),
  claim_id: z.string(),
  status: z.enum(['processing', 'complete', 'failed']),
  item_count: z.number().int(),
  photo_count: z.number().int(),
  done_count: z.number().int(),
  failed_count: z.number().int(),
  credits_charged: z.number().int(),
  claim_key: z.string().nullable().describe('The remote claim key, opaque: render it verbatim.'),
  deep_link: z.string().nullable(),
  dry_run: z.boolean(),
  error: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  processing_seconds: z.number().nullable().describe('End-to-end time from the request to the last item.'),
});

export const submissionsResponse = z.object({
  submissions: z.array(submissionResponse),
  total_items: z.number().int().describe('Active items of the claim.'),
  unsubmitted_items: z.number().int(),
});
