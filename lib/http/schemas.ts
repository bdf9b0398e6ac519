/** Small zod building blocks shared by route contracts. */
import * as z from 'zod';

export const uuid = () => z.uuid({ message: 'must be a UUID' });

/** A query-string boolean: true/false/1/0; absent means the default. */
export const queryBool = (def = false) =>
  z
    .enum(['true', 'false', '1', '0', 'True', 'False'], { message: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? def : v === 'true' || v === '1' || v === 'True'));

export const idParams = z.object({ id: uuid() });

/** The 402 answer when the billing service refuses a spend: the spec's body, which replaces {detail}. */
export const insufficientCreditsBody = z
  .object({
    error: z.literal('insufficient_credits'),
    credits_balance: z.number().nullable(),
    required_amount: z.number(),
    buy_url: z.string().nullable(),
  })
  .meta({ description: 'The team has too few credits for the run.' });

/** Cursor pagination for newest-first feeds. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(2000).optional(),
});

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID_PATTERN.test(value);
