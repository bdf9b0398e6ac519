/** Covers: lib/inventory/editing/auto-approval-rules.ts (with the review threshold of lib/inventory/item-rules.ts) */
import { shouldAutoApprove, type AutoApprovalCandidate } from '../../../../lib/inventory/editing/auto-approval-rules';
import { REVIEW_CONFIDENCE } from '../../../../lib/inventory/item-rules';
import { type AutoApproveRules, DEFAULT_AUTOMATION_SETTINGS } from '../../../../lib/settings/automation-schemas';

describe('shouldAutoApprove', () => {
  const rules = (over: Partial<AutoApproveRules> = {}): AutoApproveRules => ({
    ...DEFAULT_AUTOMATION_SETTINGS.auto_approve,
    enabled: true,
    ...over,
  });
  const item = (over: Partial<AutoApprovalCandidate> = {}): AutoApprovalCandidate => ({
    name: 'Oak dining table',
    confidence: 0.92,
    estimated_price: 800,
    needs_review: false,
    approved: false,
    ...over,
  });

  it('approves an item that passes every rule', () => {
    expect(shouldAutoApprove(item(), rules())).toBe(true);
  });

  it('does nothing when auto-approval is off or there are no rules', () => {
    expect(shouldAutoApprove(item(), null)).toBe(false);
    expect(shouldAutoApprove(item(), rules({ enabled: false }))).toBe(false);
  });

  it('leaves an already approved item alone', () => {
    expect(shouldAutoApprove(item({ approved: true }), rules())).toBe(false);
  });

  it('never approves an item flagged for review, even with a minimum below the review threshold', () => {
    expect(REVIEW_CONFIDENCE).toBe(0.6);
    expect(shouldAutoApprove(item({ needs_review: true }), rules({ min_confidence: 0 }))).toBe(false);
    expect(shouldAutoApprove(item({ confidence: 0.59 }), rules({ min_confidence: 0 }))).toBe(false);
    expect(shouldAutoApprove(item({ confidence: 0.6 }), rules({ min_confidence: 0 }))).toBe(true);
    expect(shouldAutoApprove(item({ confidence: Number.NaN }), rules({ min_confidence: 0 }))).toBe(false);
  });

  it('requires the minimum confidence (inclusive)', () => {
    expect(shouldAutoApprove(item({ confidence: 0.84 }), rules())).toBe(false);
    expect(shouldAutoApprove(item({ confidence: 0.85 }), rules())).toBe(true);
    expect(shouldAutoApprove(item({ confidence: 0.7 }), rules({ min_confidence: 0.7 }))).toBe(true);
  });

  it('requires a price when asked to', () => {
    expect(shouldAutoApprove(item({ estimated_price: null }), rules())).toBe(true);
    expect(shouldAutoApprove(item({ estimated_price: null }), rules({ require_price: true }))).toBe(false);
    expect(shouldAutoApprove(item({ estimated_price: 0 }), rules({ require_price: true }))).toBe(false);
    expect(shouldAutoApprove(item({ estimated_price: 12.5 }), rules({ require_price: true }))).toBe(true);
  });

  it('leaves items above the price ceiling, or with no price under a ceiling, for a person', () => {
    expect(shouldAutoApprove(item({ estimated_price: 500 }), rules({ max_estimated_price: 500 }))).toBe(true);
    expect(shouldAutoApprove(item({ estimated_price: 500.01 }), rules({ max_estimated_price: 500 }))).toBe(false);
    expect(shouldAutoApprove(item({ estimated_price: null }), rules({ max_estimated_price: 500 }))).toBe(false);
    expect(shouldAutoApprove(item({ estimated_price: 5000 }), rules({ max_estimated_price: null }))).toBe(true);
  });

  it('excludes names containing a keyword, ignoring case', () => {
    const excluding = rules({ exclude_name_keywords: ['jewel', 'FIREARM'] });
    expect(shouldAutoApprove(item({ name: 'Gold Jewelry box' }), excluding)).toBe(false);
    expect(shouldAutoApprove(item({ name: 'Firearm safe' }), excluding)).toBe(false);
    expect(shouldAutoApprove(item({ name: 'Oak dining table' }), excluding)).toBe(true);
  });
});
