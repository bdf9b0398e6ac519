/**
 * A platform the service sends a claim's items to (spec: Claims platform
 * send, Estimation platform send): what the rest of the service needs to
 * know of it, declared once here (`SEND_DESTINATIONS`). Its sends run on the engine
 * (lib/orchestrator) as a run kind of their own, defined beside its send
 * (`claims-platform-run-service.ts`, `estimation-run-service.ts`), which takes
 * its names from here. The declaration is plain data, so whatever reads it
 * (the admin dashboard's per-platform counts) does not load the sends. How to
 * add one: docs/architecture.md, "Adding a send destination".
 */
import type { InventoryItem } from '../inventory/item-record-rules';
import type { SendCounter } from '../stats/rules';

export interface SendDestination {
  /** Its name: the team component (lib/features/rules.ts) that turns it on, and its key in per-platform counts. */
  platform: 'claims_platform' | 'estimation_platform';
  /** The team's daily usage counter each send adds one to (lib/stats). */
  statsCounter: SendCounter;
  /** The item field stamped when an item reached the platform (what is sent already, what is frozen). */
  itemSentField: keyof Pick<InventoryItem, 'claims_platform_submitted_at' | 'estimation_sent_at'>;
  /** The engine's run kind its sends run as, and the pipeline of that run. */
  runKind: string;
  pipeline: string;
  /** The command that gives its sends in flight at a deploy their run, where an earlier release kept them otherwise. */
  migration: string | null;
}

export type SendPlatform = SendDestination['platform'];

/** The send destinations of this deployment. */
export const SEND_DESTINATIONS = [
  {
    platform: 'claims_platform',
    statsCounter: 'submissions',
    itemSentField: 'claims_platform_submitted_at',
    runKind: 'claims-send',
    pipeline: 'claims-platform-send',
    migration: 'npm run migrate:claims-platform-sends',
  },
  {
    platform: 'estimation_platform',
    statsCounter: 'estimation_sends',
    itemSentField: 'estimation_sent_at',
    runKind: 'estimation-send',
    pipeline: 'estimation-platform-send',
    migration: 'npm run migrate:estimation-sends',
  },
] as const satisfies readonly SendDestination[];

/** The declaration of one destination. */
export function destinationOf<P extends SendPlatform>(
  platform: P,
): Extract<(typeof SEND_DESTINATIONS)[number], { platform: P }> {
  return SEND_DESTINATIONS.find((d) => d.platform === platform) as Extract<
    (typeof SEND_DESTINATIONS)[number],
    { platform: P }
  >;
}
