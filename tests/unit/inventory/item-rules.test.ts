import { buildItem, derivedId, passBatchPrefix, REVIEW_CONFIDENCE } from '../../../lib/inventory/item-rules';

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

  describe('buildItem', () => {
    const at = {
      id: 'item-1',
      job: { id: 'job-1', room_id: 'room-1', claim_id: 'claim-1', team_id: 'team-1' },
      roomName: 'Kitchen',
      itemNumber: 7,
      now: new Date('2026-03-01T00:00:00.000Z'),
    };
    const origin = {
      confidence: 0.9,
      evidence: 'seen on the shelf',
      reviewed: false,
      created_pass: 1,
      source_group_index: 3,
      photo_path: '/api/photos/job-1/orig_0001.jpg',
    };

    it('makes a new, unapproved, unsent item in the job room with every missing field null', () => {
      expect(buildItem({ name: 'Lamp', quantity: 2 }, at, origin)).toEqual({
        id: 'item-1',
        job_id: 'job-1',
        room_id: 'room-1',
        claim_id: 'claim-1',
        team_id: 'team-1',
        item_number: 7,
        name: 'Lamp',
        quantity: 2,
        brand: null,
        model: null,
        serial: null,
        sku: null,
        condition: null,
        age: null,
        estimated_price: null,
        damage: null,
        notes: null,
        room: 'Kitchen',
        confidence: 0.9,
        evidence: 'seen on the shelf',
        needs_review: false,
        reviewed: false,
        approved: false,
        is_archived: false,
        archived_at: null,
        claims_platform_submitted_at: null,
        estimation_sent_at: null,
        photo_path: '/api/photos/job-1/orig_0001.jpg',
        created_pass: 1,
        source_group_index: 3,
        source_label: null,
        created_at: '2026-03-01T00:00:00.000Z',
        updated_at: '2026-03-01T00:00:00.000Z',
        rev: 0,
      });
    });

    it('keeps the given fields, clamps confidence to 0..1 and flags below 0.6, and takes a room override', () => {
      const fields = {
        name: 'TV',
        quantity: 1,
        brand: 'Sony',
        model: 'X1',
        serial: 'S1',
        sku: 'K1',
        condition: 'good',
        age: '2 years',
        estimated_price: 500,
        damage: 'scratch',
        notes: 'wall mounted',
      };
      const made = buildItem(fields, at, { ...origin, confidence: 1.4, room: null });
      expect(made).toMatchObject({ ...fields, confidence: 1, needs_review: false, room: null });
      expect(buildItem(fields, at, { ...origin, confidence: -2 })).toMatchObject({ confidence: 0, needs_review: true });
      expect(buildItem(fields, at, { ...origin, confidence: 0.59 }).needs_review).toBe(true);
    });
  });
});
