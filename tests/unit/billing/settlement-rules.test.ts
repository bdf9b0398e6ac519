/** Covers: lib/billing/settlement-rules.ts, lib/billing/settlement-store.ts (owedFields), lib/billing/charge-store.ts (chargedRoundStart) */
import { chargedRoundStart } from '../../../lib/billing/charge-store';
import {
  abandonedRoundRefund,
  awaitsRound,
  cancelBlock,
  nextChargeRound,
  owesBilling,
  racingChargeRound,
  unstartedRoundLeaseMs,
  unbilledRefund,
  unrecordedSpend,
  unstartedRound,
  spendInFlight,
  wholeRefund,
} from '../../../lib/billing/settlement-rules';
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

describe('a round charged and never started', () => {
  const chargedAt = '2030-01-01T00:00:00.000Z';
  const at = (ms: number) => Date.parse(chargedAt) + ms;
  const round = {
    id: 'j1',
    billing_charged: true,
    billing_refunded: false,
    billing_rounds: 3,
    billing_amount: 6,
    refunds_owed: [],
    billing_txn_id: 'txn-3',
    billing_unconfirmed: false,
    billing_round_started: false,
    billing_round_abandoned: false,
    billing_charged_at: chargedAt,
    updated_at: '2030-01-01T00:00:05.000Z',
  };

  it('may still be started on while it is charged, not given back, not abandoned and not started', () => {
    expect(unstartedRound(round)).toBe(true);
    // A spend whose answer was lost counts as charged until settlement says otherwise.
    expect(unstartedRound({ ...round, billing_txn_id: null, billing_unconfirmed: true })).toBe(true);
    expect(unstartedRound({ ...round, billing_txn_id: null, billing_unconfirmed: false })).toBe(false);
    expect(unstartedRound({ ...round, billing_round_started: true })).toBe(false);
    // A round charged before the field existed is not known to be unstarted.
    expect(unstartedRound({ ...round, billing_round_started: undefined })).toBe(false);
    expect(unstartedRound({ ...round, billing_round_abandoned: true })).toBe(false);
    expect(unstartedRound({ ...round, billing_refunded: true })).toBe(false);
    expect(unstartedRound({ ...round, billing_charged: false })).toBe(false);
  });

  it("takes another start's round charged after the caller read the job only while no run has started on it", () => {
    // The caller read the job at round 2; round 3 was charged since.
    expect(racingChargeRound(round, 2)).toBe(true);
    // A round charged before the started flag existed may still be one whose start is on its way.
    expect(racingChargeRound({ ...round, billing_round_started: undefined }, 2)).toBe(true);
    // A round a run has started on was used: this start charges a round of its own.
    expect(racingChargeRound({ ...round, billing_round_started: true }, 2)).toBe(false);
    expect(racingChargeRound(round, 3)).toBe(false);
    expect(racingChargeRound({ ...round, billing_refunded: true }, 2)).toBe(false);
    expect(racingChargeRound({ ...round, billing_round_abandoned: true }, 2)).toBe(false);
    expect(racingChargeRound({ ...round, billing_txn_id: null, billing_unconfirmed: false }, 2)).toBe(false);
    expect(racingChargeRound({ ...round, billing_charged: false }, 2)).toBe(false);
  });

  it('takes the lease from UNSTARTED_ROUND_LEASE_SECONDS', () => {
    expect(unstartedRoundLeaseMs({ UNSTARTED_ROUND_LEASE_SECONDS: 45 })).toBe(45_000);
    expect(abandonedRoundRefund(round, at(44_999), 45_000)).toBeNull();
    expect(abandonedRoundRefund(round, at(45_000), 45_000)).toMatchObject({ reference: 'job:j1:3' });
  });

  it('owes its whole spend back once its lease has run out, never before', () => {
    expect(unstartedRoundLeaseMs()).toBeGreaterThan(29_000); // the HTTP function's limit
    expect(abandonedRoundRefund(round, at(unstartedRoundLeaseMs() - 1))).toBeNull();
    expect(abandonedRoundRefund(round, at(unstartedRoundLeaseMs()))).toEqual({
      round: 3,
      spend_reference: 'job:j1:3',
      reference: 'job:j1:3',
      amount: null,
    });
    expect(
      abandonedRoundRefund({ ...round, billing_round_started: true }, at(10 * unstartedRoundLeaseMs())),
    ).toBeNull();
    expect(
      abandonedRoundRefund({ ...round, billing_round_abandoned: true }, at(10 * unstartedRoundLeaseMs())),
    ).toBeNull();
  });

  it('counts a round charged before charge times were recorded from the job’s last write', () => {
    const legacy = { ...round, billing_charged_at: undefined };
    expect(abandonedRoundRefund(legacy, at(unstartedRoundLeaseMs()))).toBeNull();
    expect(abandonedRoundRefund(legacy, at(unstartedRoundLeaseMs() + 5000))).toMatchObject({ reference: 'job:j1:3' });
  });

  it('is started on only by a write that holds while the round is the job’s, not given back and not abandoned', () => {
    expect(chargedRoundStart(null)).toEqual({ set: {}, guards: [] });
    const start = chargedRoundStart(3);
    expect(start.set).toEqual({ billing_round_started: true });
    expect(start.guards).toHaveLength(1);
    expect(start.guards[0].condition).toContain('billing_rounds = :startRound');
    expect(start.guards[0].condition).toContain('billing_refunded = :startFalse');
    expect(start.guards[0].condition).toContain('billing_round_abandoned = :startFalse');
    expect(start.guards[0].values).toEqual({ ':startRound': 3, ':startFalse': false });
  });
});

describe('the round a new charge asks for', () => {
  it('is the one after the last charged round', () => {
    expect(nextChargeRound({ billing_rounds: 0 })).toBe(1);
    expect(nextChargeRound({ billing_rounds: 2 })).toBe(3);
    // A job charged before rounds were counted has none recorded.
    expect(nextChargeRound({})).toBe(1);
  });

  it('is never a refused round: it comes after the last refused one when that is later', () => {
    expect(nextChargeRound({ billing_rounds: 0, billing_refused_round: 1 })).toBe(2);
    expect(nextChargeRound({ billing_rounds: 1, billing_refused_round: 3 })).toBe(4);
    // A round charged after a refusal is later than it.
    expect(nextChargeRound({ billing_rounds: 4, billing_refused_round: 3 })).toBe(5);
    expect(nextChargeRound({ billing_rounds: 2, billing_refused_round: null })).toBe(3);
  });
});

describe('a spend asked for and not recorded', () => {
  const askedAt = '2030-01-01T00:00:00.000Z';
  const at = (ms: number) => Date.parse(askedAt) + ms;
  const asked = {
    id: 'j2',
    billing_rounds: 1,
    billing_spend_round: 2,
    billing_spend_amount: 4,
    billing_charged_at: askedAt,
    updated_at: askedAt,
  };

  it('is in flight while its round is the one after the job’s last', () => {
    expect(spendInFlight(asked)).toBe(true);
    expect(spendInFlight({ billing_rounds: 0, billing_spend_round: 1 })).toBe(true);
    // A job charged before rounds were counted has none recorded.
    expect(spendInFlight({ billing_rounds: undefined as unknown as number, billing_spend_round: 1 })).toBe(true);
    expect(spendInFlight({ ...asked, billing_spend_round: null })).toBe(false);
    expect(spendInFlight({ ...asked, billing_rounds: 2 })).toBe(false); // recorded since
  });

  it('is given back once its lease has run out, never before, whatever it may have taken', () => {
    expect(unrecordedSpend(asked, at(unstartedRoundLeaseMs() - 1))).toBeNull();
    expect(unrecordedSpend(asked, at(unstartedRoundLeaseMs()))).toEqual({
      round: 2,
      previous: 1,
      amount: 4,
      refund: { round: 2, spend_reference: 'job:j2:2', reference: 'job:j2:2', amount: null },
    });
    expect(unrecordedSpend({ ...asked, billing_spend_amount: null }, at(unstartedRoundLeaseMs()))).toMatchObject({
      amount: 0,
    });
    expect(unrecordedSpend({ ...asked, billing_rounds: 2 }, at(10 * unstartedRoundLeaseMs()))).toBeNull();
    const legacy = { ...asked, billing_charged_at: null, updated_at: '2030-01-01T00:00:30.000Z' };
    expect(unrecordedSpend(legacy, at(unstartedRoundLeaseMs()))).toBeNull();
  });

  it('after a refusal, is the round after the refused one, asked after the last charged round', () => {
    const afterRefusal = { ...asked, billing_refused_round: 2, billing_spend_round: 3 };
    expect(spendInFlight(afterRefusal)).toBe(true);
    // The refused round's own request was cleared by the write that recorded the refusal; a stale one is not in flight.
    expect(spendInFlight({ ...afterRefusal, billing_spend_round: 2 })).toBe(false);
    expect(unrecordedSpend(afterRefusal, at(unstartedRoundLeaseMs()))).toEqual({
      round: 3,
      previous: 1,
      amount: 4,
      refund: { round: 3, spend_reference: 'job:j2:3', reference: 'job:j2:3', amount: null },
    });
    const uncounted = { id: 'j3', billing_rounds: undefined as unknown as number, billing_refused_round: 1 };
    expect(unrecordedSpend({ ...asked, ...uncounted }, at(unstartedRoundLeaseMs()))).toMatchObject({
      round: 2,
      previous: 0,
    });
  });

  it('keeps the job waiting on a round, as a charged round not started does', () => {
    const none = {
      billing_charged: false,
      billing_refunded: false,
      billing_txn_id: null,
      billing_rounds: 1,
      billing_spend_round: null,
    };
    expect(awaitsRound(none)).toBe(false);
    expect(awaitsRound({ ...none, billing_spend_round: 2 })).toBe(true);
    expect(awaitsRound({ ...none, billing_charged: true, billing_txn_id: 't', billing_round_started: false })).toBe(
      true,
    );
  });
});

describe('what keeps a job waiting for confirmation from being cancelled', () => {
  const never = {};
  const charged = { billing_charged: true, billing_refunded: false, billing_round_abandoned: false };
  const owed = [{ round: 1, spend_reference: 'job:j1:1', reference: 'job:j1:1', amount: null }];

  it('is nothing while no spend was ever asked for, or the one asked for was cleared', () => {
    expect(cancelBlock(never)).toBeNull();
    expect(cancelBlock({ billing_spend_round: null, billing_unconfirmed: false, refunds_owed: [] })).toBeNull();
    expect(cancelBlock({ billing_charged: false, refunds_owed: [] })).toBeNull();
  });

  it('is a spend in flight from its request until its answer is recorded, whatever else the job holds', () => {
    expect(cancelBlock({ billing_spend_round: 1 })).toBe('spend_in_flight');
    expect(cancelBlock({ ...charged, billing_refunded: true, billing_spend_round: 2 })).toBe('spend_in_flight');
  });

  it('is billing owed while a refund is owed or a spend is to be confirmed', () => {
    expect(cancelBlock({ ...charged, billing_round_abandoned: true, refunds_owed: owed })).toBe('billing_owed');
    expect(cancelBlock({ ...charged, billing_unconfirmed: true, billing_round_abandoned: true })).toBe('billing_owed');
  });

  it('is a charged round while it was not given back: a start may still use it', () => {
    expect(cancelBlock(charged)).toBe('round_charged');
  });

  it('is nothing once the round was given back whole, or abandoned with nothing left owed', () => {
    expect(
      cancelBlock({ ...charged, billing_refunded: true, billing_round_abandoned: true, refunds_owed: [] }),
    ).toBeNull();
    expect(cancelBlock({ ...charged, billing_round_abandoned: true, refunds_owed: [] })).toBeNull();
  });
});
