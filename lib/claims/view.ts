/** Claims as the API shows them (spec: Resources > Claim). */
import { itemsLocked } from './rules';
import type { Claim } from './store';

export function claimView(claim: Claim) {
  const { spend_credits, ...rest } = claim;
  return { ...rest, items_locked: itemsLocked(claim), spend_usd: Math.round(spend_credits ?? 0) };
}
