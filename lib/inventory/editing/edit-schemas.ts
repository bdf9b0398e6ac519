/** Request bodies of the item editing routes (spec: Inventory; InventoryItem). */
import * as z from 'zod';
import { uuid } from '../../http/schemas';

const text = (max: number) =>
  z.string({ message: 'must be text' }).trim().max(max, `must be at most ${max} characters`);
const optionalText = (max: number) => text(max).nullable().optional();
const itemName = () => text(300).min(1, 'must not be empty').optional();

/** Most items one bulk patch may name. */
const MAX_BULK_ITEMS = 500;

/**
 * The fields a person may edit. `title` is another name for `name` (the
 * estimation platform calls it title); give one of them, not both.
 */
const itemPatchObject = z.strictObject({
  name: itemName(),
  title: itemName().describe('Same as name (the estimation platform calls it title).'),
  quantity: z
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000')
    .optional(),
  brand: optionalText(200),
  model: optionalText(200),
  serial: optionalText(200),
  sku: optionalText(200),
  condition: optionalText(200),
  age: optionalText(100),
  damage: optionalText(2000),
  notes: optionalText(5000),
  room: optionalText(200).describe('The room name shown on the item (text; the item stays in its room).'),
  estimated_price: z
    .number({ message: 'must be a number' })
    .min(0, 'must not be negative')
    .max(1_000_000_000, 'must be at most 1000000000')
    .nullable()
    .optional()
    .describe('USD per unit; null clears it.'),
});

export const itemPatchBody = itemPatchObject
  .refine((v) => Object.values(v).some((value) => value !== undefined), 'must change at least one field')
  .refine((v) => v.name === undefined || v.title === undefined, {
    message: 'give name or title, not both',
    path: ['title'],
  });

export type ItemPatchInput = z.output<typeof itemPatchBody>;

export const approveBody = z
  .strictObject({
    item_id: uuid(),
    approved: z.boolean({ message: 'must be true or false' }).optional(),
    needs_review: z
      .boolean({ message: 'must be true or false' })
      .optional()
      .describe('Flag the item for review (true) or clear the flag (false).'),
  })
  .refine((v) => v.approved !== undefined || v.needs_review !== undefined, 'give approved, needs_review or both');

export const bulkBody = z.strictObject({
  item_ids: z
    .array(uuid())
    .min(1, 'must name at least one item')
    .max(MAX_BULK_ITEMS, `must name at most ${MAX_BULK_ITEMS} items`),
  patch: itemPatchBody,
});

export const bulkResponse = z.object({
  updated: z.array(z.uuid()).describe('Items now carrying the patch.'),
  skipped: z.array(z.uuid()).describe('Items left alone because they were submitted to the claims platform.'),
});

export const autoApproveResponse = z.object({
  approved: z.number().int(),
  item_ids: z.array(z.uuid()),
});
