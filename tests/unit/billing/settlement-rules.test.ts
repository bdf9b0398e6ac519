/** Covers: lib/billing/settlement-rules.ts, lib/billing/settlement-store.ts (owedFields) */
import { owesBilling, unbilledRefund, wholeRefund } from '../../../lib/billing/settlement-rules';
import { owedFields } from '../../../lib/billing/settlement-store';

describe('refunds owed at the end of a run', () => {
  const charged = {
    id: 'j1',
    billing_charged: true,
    billing_refunded: false,
    billing_rounds: 2,
    billing_amount: 5,
    refunds_owed: [],
  };

  it('owes a completed run back what it spent up front and did not bill, under its own reference', () => {
    expect(unbilledRefund(charged, 3)).toEqual({
      round: 2,
      spend_reference: 'job:j1:2',
      reference: 'job:j1:2:adjust',
      amount: 2,
    });
    expect(unbilledRefund(charged, 5)).toBeNull();
    expect(unbilledRefund(charged, 7)).toBeNull(); // never a second charge
    // A job that never owed anything has no refunds_owed at all.
    expect(unbilledRefund({ ...charged, refunds_owed: undefined }, 4)).toMatchObject({
      reference: 'job:j1:2:adjust',
      amount: 1,
    });
  });

  it('owes nothing back for a round that was not charged, was refunded, or already owes its whole refund', () => {
    expect(unbilledRefund({ ...charged, billing_charged: false }, 0)).toBeNull();
    expect(unbilledRefund({ ...charged, billing_refunded: true }, 0)).toBeNull();
    const owed = wholeRefund(charged);
    expect(owed).toEqual({ round: 2, spend_reference: 'job:j1:2', reference: 'job:j1:2', amount: null });
    expect(unbilledRefund({ ...charged, refunds_owed: [owed!] }, 0)).toBeNull();
    expect(wholeRefund({ ...charged, billing_refunded: true })).toBeNull();
  });

  it('records what is owed with the run-ending write, once per reference, and lists the job for the sweep', () => {
    const owed = wholeRefund(charged);
    const fields = owedFields({ id: 'j1', refunds_owed: [owed!] }, [owed, null], new Date('2030-01-01T00:00:00Z'));
    expect(fields).toEqual({
      set: {
        refunds_owed: [owed],
        refund_state: 'pending',
        archpk: 'BILLING#PENDING',
        archsk: '2030-01-01T00:00:00.000Z#j1',
      },
      add: { billing_version: 1 },
    });
    expect(owedFields({ id: 'j1' }, [null])).toEqual({ set: {}, add: {} });
  });

  it('owes the billing service something while a refund is owed or a spend answer was lost', () => {
    expect(owesBilling({})).toBe(false);
    expect(owesBilling({ refunds_owed: [], billing_unconfirmed: false })).toBe(false);
    expect(owesBilling({ refunds_owed: [wholeRefund(charged)!] })).toBe(true);
    expect(owesBilling({ refunds_owed: [], billing_unconfirmed: true })).toBe(true);
  });
});
