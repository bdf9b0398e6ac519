import { derivedId, passBatchPrefix, REVIEW_CONFIDENCE } from '../../../lib/inventory/item-rules';

describe('item rules', () => {
  it('derives the same uuid-shaped id from the same parts, and another from other parts', () => {
    const id = derivedId('job', 'pass1#run', 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedId('job', 'pass1#run', 0)).toBe(id);
    expect(derivedId('job', 'pass1#run', 1)).not.toBe(id);
  });

  it('prefixes the batch keys of a pass, and flags confidence below 0.6', () => {
    expect(passBatchPrefix(2)).toBe('pass2#');
    expect(REVIEW_CONFIDENCE).toBe(0.6);
  });
});
