/** Item answer shapes (spec: InventoryItem, ItemPhoto). */
import * as z from 'zod';

const nullableText = z.string().nullable();

export const itemResponse = z.object({
  id: z.uuid(),
  job_id: z.uuid(),
  room_id: z.uuid(),
  claim_id: z.uuid(),
  item_number: z.number().int(),
  name: z.string(),
  quantity: z.number().int(),
  brand: nullableText,
  model: nullableText,
  serial: nullableText,
  sku: nullableText,
  condition: nullableText,
  age: nullableText,
  estimated_price: z.number().nullable(),
  damage: nullableText,
  notes: nullableText,
  room: nullableText,
  confidence: z.number().min(0).max(1),
  evidence: nullableText,
  needs_review: z.boolean().describe('Flagged for review: confidence below 0.6.'),
  reviewed: z.boolean(),
  approved: z.boolean(),
  is_archived: z.boolean(),
  archived_at: nullableText,
  claims_platform_submitted_at: nullableText,
  estimation_sent_at: nullableText,
  photo_path: nullableText.describe("The primary photo's path."),
  source_group_index: z.number().int().nullable(),
  source_label: nullableText.describe(
    "The label a contents list printed for the photos the item was made from (for example 'Item 0018'; several joined by '; ' after a merge), so the item can be matched to the vendor's line. Null for items not made from a contents list's photos.",
  ),
  created_at: z.string(),
  updated_at: z.string(),
  photos: z.array(
    z.object({
      id: z.uuid(),
      filename: z.string(),
      url: z.string(),
      is_primary: z.boolean(),
      ordering: z.number().int(),
    }),
  ),
});
