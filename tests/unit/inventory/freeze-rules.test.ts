import { itemFrozen } from '../../../lib/inventory/freeze-rules';

const sentClaim = {
  estimation_claim_id: 'remote-1',
  estimation_submitted_at: '2026-01-01T00:00:00.000Z',
  is_training: false,
  estimation_items_unlocked: false,
};
const sentItem = { estimation_sent_at: '2026-01-01T00:00:00.000Z' };

describe('itemFrozen', () => {
  it('freezes a sent item of a locked claim', () => {
    expect(itemFrozen(sentClaim, sentItem)).toBe(true);
    expect(itemFrozen({ ...sentClaim, estimation_claim_id: null }, sentItem)).toBe(true);
  });

  it('leaves an unsent item of a locked claim free', () => {
    expect(itemFrozen(sentClaim, { estimation_sent_at: null })).toBe(false);
  });

  it('leaves a sent item free when the claim is not locked', () => {
    expect(itemFrozen({ ...sentClaim, estimation_claim_id: null, estimation_submitted_at: null }, sentItem)).toBe(
      false,
    );
    expect(itemFrozen({ ...sentClaim, is_training: true }, sentItem)).toBe(false);
    expect(itemFrozen({ ...sentClaim, estimation_items_unlocked: true }, sentItem)).toBe(false);
  });
});
