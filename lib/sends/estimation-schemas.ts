/** Request and response shapes of the estimation platform routes (spec: Claims; Estimation platform send). */
import * as z from 'zod';

const uuidOrBlank = z
  .string()
  .trim()
  .refine((v) => v === '' || z.uuid().safeParse(v).success, 'must be a UUID')
  .nullish();

export const estimationSendBody = z.strictObject({
  item_ids: z
    .array(z.string().min(1))
    .max(5000, 'must name at most 5000 items')
    .optional()
    .describe(
      'The items ticked in the modal; only never-sent items among them travel. Absent or empty: every unsent item.',
    ),
  target_claim_key: z
    .string()
    .trim()
    .max(2000)
    .nullish()
    .describe(
      'An existing estimation platform claim to append to (from the picker); ignored once the claim is linked.',
    ),
  depreciation_schedule_id: uuidOrBlank.describe(
    'Pricing selection; travels only on the creating send. Blank: omitted.',
  ),
  shopping_profile_id: uuidOrBlank.describe(
    "Pricing selection; travels only on the creating send. Blank: the schedule's default profile, when it has any.",
  ),
});

export const estimationSendResponse = z.object({
  claim_key: z.string().describe('The remote claim key, opaque: render it verbatim.'),
  claim_id: z.string().describe('The remote claim id (deep links use it).'),
  created: z.boolean().describe('True when this send created the remote claim.'),
  items_sent: z.number().int(),
  item_ids: z.array(z.string()),
  added: z.number().int().describe('Items the remote added.'),
  skipped: z.number().int().describe('Items the remote already had (a repeat).'),
  credits_charged: z.number().int(),
  photos_included: z.number().int(),
  dry_run: z.boolean().describe('A training claim: nothing was sent and the key is a stand-in.'),
  warnings: z.array(z.string()),
  sent_at: z.string(),
  deep_link: z.string().nullable(),
});

export const estimationQuoteResponse = z.object({
  unsent_item_count: z.number().int(),
  credit_cost_per_item: z.number(),
  total_credits: z.number().int().describe('What sending every unsent item would cost now.'),
  enterprise: z.boolean(),
  training: z.boolean(),
});

export const estimationItemsResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      item_number: z.number().int(),
      name: z.string(),
      quantity: z.number(),
      room: z.string().nullable(),
      room_id: z.string(),
      photo_path: z.string().nullable(),
      estimated_price: z.number().nullable(),
      estimation_sent_at: z.string().nullable(),
      sent: z.boolean(),
    }),
  ),
  unsent_item_count: z.number().int(),
});

const shoppingProfile = z.object({ id: z.string(), name: z.string(), is_default: z.boolean() });

export const estimationProfilesResponse = z.object({
  available: z
    .boolean()
    .describe('False when the platform is not configured for this team, or the remote answered 404.'),
  schedules: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      is_default: z.boolean(),
      shopping_profiles: z.array(shoppingProfile),
    }),
  ),
  preselected: z.object({
    depreciation_schedule_id: z.string().nullable(),
    shopping_profile_id: z.string().nullable(),
  }),
});

export const estimationClaimsQuery = z.object({
  q: z.string().trim().max(200).optional().describe('Search text: claim number or policyholder.'),
});

export const estimationClaimsResponse = z.object({
  available: z.boolean(),
  claims: z.array(
    z.object({
      claim_number: z.string(),
      policyholder: z.string().nullable(),
      claim_key: z.string(),
      claim_id: z.string(),
    }),
  ),
});

export const estimationLockBody = z.strictObject({
  unlocked: z.boolean().describe('True lets people edit sent items again; false restores the freeze.'),
});
