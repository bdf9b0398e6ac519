/** Purge requests travel on the purge queue and are handled by functions/workers/purge. */
import * as z from 'zod';

export const purgeRequest = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('claim'), claim_id: z.uuid(), team_id: z.string() }),
  z.object({ kind: z.literal('room'), room_id: z.uuid(), claim_id: z.uuid(), team_id: z.string() }),
  // archived_at as the daily purge saw it: an item unarchived (or archived again) since is left alone.
  z.object({
    kind: z.literal('item'),
    item_id: z.uuid(),
    claim_id: z.uuid(),
    team_id: z.string(),
    archived_at: z.string(),
  }),
]);
export type PurgeRequest = z.output<typeof purgeRequest>;
