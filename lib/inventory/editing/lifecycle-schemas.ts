/** Bodies and answers of manual add, delete and merge (spec: Inventory). */
import * as z from 'zod';
import { uuid } from '../../http/schemas';

const text = z.string().trim().max(2000, 'must be at most 2000 characters').nullable().optional();

/** The fields a person may give a new item (those the edit takes), and where it goes in the claim's numbering. */
export const itemAddBody = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(500, 'must be at most 500 characters'),
  quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').default(1),
  brand: text,
  model: text,
  serial: text,
  sku: text,
  condition: text,
  age: text,
  notes: text,
  damage: text,
  room: text.describe("Defaults to the job's room name."),
  estimated_price: z.number().min(0, 'must not be negative').nullable().optional(),
  insert_after_item_number: z
    .number()
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .optional()
    .describe(
      'Insert right after this item number of the claim (0: at the start); every later item of the claim moves ' +
        "up by one. Without it the item takes the claim's next number.",
    ),
});

export const itemMergeBody = z.strictObject({
  item_ids: z.array(uuid()).max(100, 'must name at most 100 items').describe('At least two items of one claim.'),
  target_item_id: uuid().optional().describe('The item kept; the lowest item number when absent.'),
});

export const itemDeletedResponse = z.object({ deleted: z.literal(true), id: z.uuid() });
