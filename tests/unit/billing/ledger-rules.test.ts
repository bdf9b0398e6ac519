/** How a job's charges are named at the billing service: spend and refund references, and the spend's description. */
import { jobChargeReference, spendDescription, unbilledRefundReference } from '../../../lib/billing/ledger-rules';

describe('references', () => {
  it('keys every charge round of a job on the job id, so a spend is idempotent per round', () => {
    expect(jobChargeReference('j1', 1)).toBe('job:j1:1');
    expect(jobChargeReference('j1', 2)).toBe('job:j1:2');
  });

  it("names the refund of a round's unbilled part after the round's spend", () => {
    expect(unbilledRefundReference('j1', 2)).toBe('job:j1:2:adjust');
    expect(unbilledRefundReference('j1', 2)).not.toBe(jobChargeReference('j1', 2));
  });
});

describe('spendDescription', () => {
  it.each([
    ['video', 6, 'Video processing: 6 credits (job j1)'],
    ['photo', 1, 'Photo processing: 1 credit (job j1)'],
    ['audio', 0, 'Audio processing: 0 credits (job j1)'],
  ] as const)('describes a %s spend of %i', (source_type, credits, text) => {
    expect(spendDescription({ id: 'j1', source_type }, credits)).toBe(text);
  });
});
