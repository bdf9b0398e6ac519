import { ConflictError, RemoteFailureError, UnprocessableError } from '../../../lib/errors';
import {
  answeredBySend,
  batchDigest,
  completedPricing,
  coveredBy,
  createPayload,
  dryRunRemoteClaim,
  FIRM_NOT_PROVISIONED,
  itemHasPhotos,
  itemPhotoLinks,
  itemsToSend,
  NO_TEAM_KEY,
  NOT_CONFIGURED,
  perilOf,
  preselectedPricing,
  REMOTE_CLAIM_GONE,
  remoteFailure,
  remoteItem,
  sendChargeReference,
  sendCredits,
  sendDestination,
} from '../../../lib/sends/estimation-rules';

const CLAIM_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('refusals before any network call', () => {
  it('say what is missing and what to do about it', () => {
    expect(NOT_CONFIGURED).toMatch(/no API base URL is set/);
    expect(NO_TEAM_KEY).toMatch(/sign in again from the claims platform/);
  });
});

describe('the destination rule', () => {
  it('appends to the linked claim and ignores a target', () => {
    expect(sendDestination({ estimation_claim_key: 'K 1/2' }, 'OTHER')).toEqual({
      mode: 'append_linked',
      claim_key: 'K 1/2',
    });
  });
  it('appends to a named target when not linked', () => {
    expect(sendDestination({ estimation_claim_key: null }, ' T-9 ')).toEqual({
      mode: 'append_target',
      claim_key: 'T-9',
    });
  });
  it('creates otherwise (a blank target is no target)', () => {
    expect(sendDestination({ estimation_claim_key: null }, '  ')).toEqual({ mode: 'create' });
    expect(sendDestination({ estimation_claim_key: null }, null)).toEqual({ mode: 'create' });
  });
});

describe('items to send (rule 1)', () => {
  const items = [
    { id: 'a', estimation_sent_at: null, is_archived: false },
    { id: 'b', estimation_sent_at: '2026-01-01T00:00:00Z', is_archived: false },
    { id: 'c', estimation_sent_at: null, is_archived: true },
    { id: 'd', estimation_sent_at: null, is_archived: false },
  ];
  it('sends every unsent active item by default', () => {
    expect(itemsToSend(items, undefined).map((i) => i.id)).toEqual(['a', 'd']);
    expect(itemsToSend(items, []).map((i) => i.id)).toEqual(['a', 'd']);
  });
  it('sends only unsent items among the ticked ones', () => {
    expect(itemsToSend(items, ['b', 'd', 'zz']).map((i) => i.id)).toEqual(['d']);
    expect(itemsToSend(items, ['b', 'c'])).toEqual([]);
  });
});

describe('charge references (Limits rule 7)', () => {
  it('uses ce-send for the first send and ce-add with an order-independent digest later', () => {
    expect(sendChargeReference({ id: CLAIM_ID, estimation_submitted_at: null }, ['b', 'a'], 1)).toBe(
      `ce-send:${CLAIM_ID}`,
    );
    const later = { id: CLAIM_ID, estimation_submitted_at: '2026-01-01T00:00:00Z' };
    const one = sendChargeReference(later, ['a', 'b', 'c'], 1);
    expect(one).toBe(`ce-add:${CLAIM_ID}:${batchDigest(['c', 'b', 'a'])}`);
    expect(sendChargeReference(later, ['c', 'a', 'b', 'a'], 1)).toBe(one);
    expect(sendChargeReference(later, ['a', 'b'], 1)).not.toBe(one);
  });
  it('gives a later round its own reference', () => {
    expect(sendChargeReference({ id: CLAIM_ID, estimation_submitted_at: null }, ['a'], 2)).toBe(
      `ce-send:${CLAIM_ID}:r2`,
    );
  });
  it('prices items, with enterprise and training free', () => {
    expect(sendCredits({ itemCount: 3, creditsPerItem: 1, enterprise: false, training: false })).toBe(3);
    expect(sendCredits({ itemCount: 3, creditsPerItem: 0.5, enterprise: false, training: false })).toBe(2);
    expect(sendCredits({ itemCount: 3, creditsPerItem: 1, enterprise: true, training: false })).toBe(0);
    expect(sendCredits({ itemCount: 3, creditsPerItem: 1, enterprise: false, training: true })).toBe(0);
  });
});

describe('the create payload mapping', () => {
  const claim = {
    id: CLAIM_ID,
    claim_number: 'CLM-1',
    loss_type: ' Water  Damage ',
    coverage_type: 'RCV' as const,
    claim_type: 'Commercial' as const,
    adjuster_name: 'Ada Adjuster',
    zip_code: 'K1A 0B1',
    insured_name: 'Pat Insured',
  };
  it('maps every field', () => {
    const payload = createPayload({
      claim,
      createdBy: { external_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', email: 'ada@example.test' },
      pricing: { depreciation_schedule_id: 'sched', shopping_profile_id: ' prof ' },
      items: [],
    });
    expect(payload).toEqual({
      external_reference: CLAIM_ID,
      peril: 'water',
      coverage_type: 'rcv',
      claim_type: 'commercial',
      depreciation_schedule_id: 'sched',
      shopping_profile_id: 'prof',
      metadata: { source_claim_number: 'CLM-1', adjuster_name: 'Ada Adjuster' },
      loss_address: { zip: 'K1A 0B1' },
      policyholder: { name: 'Pat Insured' },
      created_by: { user_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', email: 'ada@example.test' },
      items: [],
    });
  });
  it('omits blank and unmapped values instead of sending null, and user_id for a legacy id', () => {
    const payload = createPayload({
      claim: {
        ...claim,
        loss_type: 'Meteor strike',
        coverage_type: null,
        claim_type: null,
        adjuster_name: ' ',
        zip_code: null,
        insured_name: '',
      },
      createdBy: { external_id: '42', email: 'ada@example.test' },
      pricing: { depreciation_schedule_id: '', shopping_profile_id: null },
      items: [],
    });
    expect(payload).toEqual({
      external_reference: CLAIM_ID,
      metadata: { source_claim_number: 'CLM-1' },
      created_by: { email: 'ada@example.test' },
      items: [],
    });
    expect(JSON.stringify(payload)).not.toContain('null');
  });
  it('maps ACV and the perils it knows, lowercased', () => {
    expect(
      createPayload({
        claim: { ...claim, coverage_type: 'ACV', claim_type: 'Residential' },
        createdBy: { external_id: null, email: 'e' },
        pricing: {},
        items: [],
      }),
    ).toMatchObject({
      coverage_type: 'acv',
      claim_type: 'residential',
    });
    expect(perilOf('FIRE')).toBe('fire');
    expect(perilOf('Hurricane')).toBe('wind');
    expect(perilOf(null)).toBeUndefined();
    expect(perilOf('unknown')).toBeUndefined();
  });
});

describe('the item mapping', () => {
  const item = {
    id: 'item-1',
    name: 'Sofa',
    quantity: 2,
    brand: 'Acme',
    sku: null,
    condition: 'good',
    age: '3 years',
    notes: 'Grey fabric',
    room: 'Living Room',
    estimated_price: 800,
    model: 'S-1',
    serial: '',
    damage: 'smoke',
    item_number: 7,
  };
  it('maps fields, extras under details and the primary photo to image_url', () => {
    const photos = itemPhotoLinks(
      { photo_path: null },
      [
        { job_id: 'j', filename: 'b.jpg', is_primary: false, ordering: 0 },
        { job_id: 'j', filename: 'a one.jpg', is_primary: true, ordering: 1 },
      ],
      'https://inv.example.test/',
    );
    expect(photos).toEqual([
      { url: 'https://inv.example.test/api/photos/j/a%20one.jpg', kind: 'primary' },
      { url: 'https://inv.example.test/api/photos/j/b.jpg', kind: 'additional' },
    ]);
    expect(remoteItem(item, photos)).toEqual({
      external_id: 'item-1',
      title: 'Sofa',
      quantity: 2,
      brand: 'Acme',
      condition: 'good',
      age: '3 years',
      description: 'Grey fabric',
      room: 'Living Room',
      estimated_price: 800,
      details: { model: 'S-1', damage: 'smoke', item_number: '7' },
      photos,
      image_url: photos[0].url,
    });
  });
  it('falls back to the legacy photo_path, and omits photos without a public base URL', () => {
    expect(itemPhotoLinks({ photo_path: '/api/photos/j/x.jpg' }, [], 'https://h')).toEqual([
      { url: 'https://h/api/photos/j/x.jpg', kind: 'primary' },
    ]);
    expect(itemPhotoLinks({ photo_path: '/api/photos/j/x.jpg' }, [], '')).toEqual([]);
    expect(itemHasPhotos({ photo_path: '/p' }, [])).toBe(true);
    expect(itemHasPhotos({ photo_path: null }, [])).toBe(false);
  });
  it('never sends an empty title, a zero quantity or empty details', () => {
    const bare = remoteItem(
      {
        ...item,
        name: ' ',
        quantity: 0,
        brand: null,
        condition: null,
        age: null,
        notes: null,
        room: null,
        estimated_price: null,
        model: null,
        damage: null,
        item_number: 0,
      },
      [],
    );
    expect(bare).toEqual({ external_id: 'item-1', title: 'Untitled item', quantity: 1 });
  });
});

describe('pricing (rule 3)', () => {
  const schedules = [
    { id: 's1', name: 'A', is_default: false, shopping_profiles: [{ id: 'p1', name: 'x', is_default: false }] },
    {
      id: 's2',
      name: 'B',
      is_default: true,
      shopping_profiles: [
        { id: 'p2', name: 'y', is_default: false },
        { id: 'p3', name: 'z', is_default: true },
      ],
    },
    { id: 's3', name: 'C', is_default: false, shopping_profiles: [] },
  ];
  it('preselects the default schedule and its default profile, else the first', () => {
    expect(preselectedPricing(schedules)).toEqual({ depreciation_schedule_id: 's2', shopping_profile_id: 'p3' });
    expect(preselectedPricing([schedules[0]])).toEqual({ depreciation_schedule_id: 's1', shopping_profile_id: 'p1' });
    expect(preselectedPricing([schedules[2]])).toEqual({ depreciation_schedule_id: 's3', shopping_profile_id: null });
    expect(preselectedPricing([])).toEqual({ depreciation_schedule_id: null, shopping_profile_id: null });
  });
  it('always sends a profile when the chosen schedule has any', () => {
    expect(completedPricing({ depreciation_schedule_id: 's2' }, schedules)).toEqual({
      depreciation_schedule_id: 's2',
      shopping_profile_id: 'p3',
    });
    expect(completedPricing({ depreciation_schedule_id: 's2', shopping_profile_id: 'p2' }, schedules)).toEqual({
      depreciation_schedule_id: 's2',
      shopping_profile_id: 'p2',
    });
    expect(completedPricing({ depreciation_schedule_id: 's3', shopping_profile_id: 'p2' }, schedules)).toEqual({
      depreciation_schedule_id: 's3',
    });
    expect(completedPricing({ depreciation_schedule_id: 'unknown' }, schedules)).toEqual({
      depreciation_schedule_id: 'unknown',
      shopping_profile_id: undefined,
    });
    expect(completedPricing({ shopping_profile_id: 'p1' }, null)).toEqual({
      depreciation_schedule_id: undefined,
      shopping_profile_id: 'p1',
    });
  });
});

describe('remote error mapping (rule 6)', () => {
  it('maps each refusal', () => {
    const unauthorized = remoteFailure({ outcome: 'unauthorized' }, 'create');
    expect(unauthorized).toBeInstanceOf(ConflictError);
    expect(unauthorized.message).toBe(FIRM_NOT_PROVISIONED);
    const invalid = remoteFailure({ outcome: 'unprocessable', detail: 'items.0.title: required' }, 'create');
    expect(invalid).toBeInstanceOf(UnprocessableError);
    expect(invalid.message).toBe('items.0.title: required');
    const gone = remoteFailure({ outcome: 'not_found', detail: 'Claim not found' }, 'append');
    expect(gone).toBeInstanceOf(ConflictError);
    expect(gone.message).toBe(REMOTE_CLAIM_GONE);
    expect(remoteFailure({ outcome: 'not_found', detail: 'x' }, 'create')).toBeInstanceOf(RemoteFailureError);
    expect(remoteFailure({ outcome: 'unavailable', detail: 'down' }, 'read')).toBeInstanceOf(RemoteFailureError);
  });
});

describe('dry runs and repeats', () => {
  it('gives a training claim a stable stand-in key and id', () => {
    const one = dryRunRemoteClaim(CLAIM_ID);
    expect(one).toEqual(dryRunRemoteClaim(CLAIM_ID));
    expect(one.claim_key).toMatch(/^TRAINING-[0-9A-F]{10}$/);
    expect(one.claim_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it('tells whether an earlier batch covers a request', () => {
    expect(coveredBy(['a'], ['a', 'b'])).toBe(true);
    expect(coveredBy(['a', 'c'], ['a', 'b'])).toBe(false);
    expect(coveredBy([], ['a'])).toBe(false);
  });
  it('answers a request with an overlapping send only when it has nothing of its own left to send', () => {
    // A double click: everything it would send went in the first send's batch.
    expect(answeredBySend(0, [], ['a', 'b'])).toBe(true);
    expect(answeredBySend(0, null, ['a', 'b'])).toBe(true);
    expect(answeredBySend(0, ['a'], ['a', 'b'])).toBe(true);
    // An item added meanwhile (by anyone) is still to send: the request sends it, whatever it named.
    expect(answeredBySend(1, [], ['a', 'b'])).toBe(false);
    expect(answeredBySend(1, ['a', 'c'], ['a', 'b'])).toBe(false);
    // Naming an item sent before, not by that send: not its answer (nothing new).
    expect(answeredBySend(0, ['a', 'z'], ['a', 'b'])).toBe(false);
  });
});
