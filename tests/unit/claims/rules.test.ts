import { changedClaimFields, itemsLocked } from '../../../lib/claims/rules';
import type { Claim } from '../../../lib/claims/claim-record-rules';

const claim = (over: Partial<Claim> = {}): Claim => ({
  id: 'c1',
  team_id: 't1',
  created_by_user_id: 'u1',
  claim_number: 'CLM-1',
  insured_name: null,
  loss_type: null,
  coverage_type: null,
  claim_type: null,
  zip_code: null,
  adjuster_name: null,
  is_archived: false,
  archived_at: null,
  submitted_at: null,
  is_training: false,
  estimation_claim_key: null,
  estimation_claim_id: null,
  estimation_submitted_at: null,
  estimation_items_unlocked: false,
  spend_credits: 0,
  created_at: '2024-01-01T00:00:00.000Z',
  updated_at: '2024-01-01T00:00:00.000Z',
  ...over,
});

describe('itemsLocked', () => {
  it('locks once the claim was sent to the estimation platform', () => {
    expect(itemsLocked(claim())).toBe(false);
    expect(itemsLocked(claim({ estimation_claim_id: 'E-1' }))).toBe(true);
    expect(itemsLocked(claim({ estimation_submitted_at: '2024-01-02T00:00:00.000Z' }))).toBe(true);
  });

  it('never locks a training claim, and the admin unlock overrides the lock', () => {
    expect(itemsLocked(claim({ estimation_claim_id: 'E-1', is_training: true }))).toBe(false);
    expect(itemsLocked(claim({ estimation_claim_id: 'E-1', estimation_items_unlocked: true }))).toBe(false);
  });
});

describe('changedClaimFields', () => {
  it('names the patched editable fields whose value changed', () => {
    const before = claim({ insured_name: 'Ann', zip_code: '12345' });
    const after = claim({ insured_name: 'Bea', zip_code: '12345' });
    expect(changedClaimFields(before, after, { insured_name: 'Bea', zip_code: '12345' })).toEqual(['insured_name']);
    expect(changedClaimFields(before, before, { insured_name: 'Ann' })).toEqual([]);
  });
});
