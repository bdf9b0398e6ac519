/**
 * Auto-approval (spec: Processing rules 4; Inventory: POST
 * /api/inventory/{job_id}/auto-approve): the team's saved rules decide which
 * unapproved items are approved without a person. The rules are stored in the
 * team's automation settings (lib/settings/automation-schemas.ts). Pure: no I/O.
 */
import type { AutoApproveRules } from '../../settings/automation-schemas';
import { REVIEW_CONFIDENCE } from '../item-rules';

export interface AutoApprovalCandidate {
  name: string;
  confidence: number;
  estimated_price: number | null;
  needs_review: boolean;
  approved: boolean;
}

/**
 * Whether the rules approve this item. Never an item flagged for review
 * (confidence below 0.6 counts as flagged even if the flag was not stored);
 * an item already approved is left alone (false: nothing to do).
 */
export function shouldAutoApprove(item: AutoApprovalCandidate, rules: AutoApproveRules | null): boolean {
  if (!rules?.enabled) return false;
  if (item.approved) return false;
  if (item.needs_review || !(item.confidence >= REVIEW_CONFIDENCE)) return false;
  if (!(item.confidence >= rules.min_confidence)) return false;
  const price = item.estimated_price;
  const hasPrice = price !== null && Number.isFinite(price) && price > 0;
  if (rules.require_price && !hasPrice) return false;
  // A ceiling is a promise that nothing expensive slips through, so an item
  // whose price is unknown cannot be shown to be under it.
  if (rules.max_estimated_price !== null && (!hasPrice || price! > rules.max_estimated_price)) return false;
  const name = item.name.toLowerCase();
  if (rules.exclude_name_keywords.some((k) => name.includes(k.trim().toLowerCase()))) return false;
  return true;
}
