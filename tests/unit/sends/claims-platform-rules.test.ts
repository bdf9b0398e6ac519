import { ConflictError, RemoteFailureError } from '../../../lib/errors';
import {
  adjusterIdOf,
  CLAIMS_PLATFORM_NOT_CONFIGURED,
  claimDeepLink,
  claimsPlatformFailure,
  dryRunClaimKey,
  itemRefundReference,
  itemsToSubmit,
  NO_TEAM_TOKEN,
  remoteClaimFields,
  remoteItemFields,
  remotePhotos,
  sendRefusal,
  sendToken,
  submissionChargeKey,
} from '../../../lib/sends/claims-platform-rules';

const CLAIM = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('claims platform send rules', () => {
  it('authenticates with the team token, else the global bearer, else nothing', () => {
    expect(sendToken('team', 'global')).toBe('team');
    expect(sendToken(null, 'global')).toBe('global');
    expect(sendToken(' ', '')).toBeNull();
  });

  it('refuses before any call without a base URL or a token (409)', () => {
    expect(sendRefusal({ baseUrl: '', token: 't' })?.message).toBe(CLAIMS_PLATFORM_NOT_CONFIGURED);
    const noToken = sendRefusal({ baseUrl: 'https://cp', token: null });
    expect(noToken).toBeInstanceOf(ConflictError);
    expect(noToken?.message).toBe(NO_TEAM_TOKEN);
    expect(sendRefusal({ baseUrl: 'https://cp', token: 't' })).toBeNull();
  });

  it('selects the active, unsubmitted items of the chosen rooms', () => {
    const items = [
      { id: 'a', room_id: 'r1', is_archived: false, claims_platform_submitted_at: null },
      { id: 'b', room_id: 'r1', is_archived: true, claims_platform_submitted_at: null },
      { id: 'c', room_id: 'r2', is_archived: false, claims_platform_submitted_at: '2026-01-01' },
      { id: 'd', room_id: 'r2', is_archived: false, claims_platform_submitted_at: null },
    ];
    expect(itemsToSubmit(items, undefined).map((i) => i.id)).toEqual(['a', 'd']);
    expect(itemsToSubmit(items, ['r2']).map((i) => i.id)).toEqual(['d']);
    expect(itemsToSubmit(items, []).map((i) => i.id)).toEqual(['a', 'd']);
  });

  it('keys each batch by the items already submitted, a refunded attempt by its round', () => {
    expect(submissionChargeKey(CLAIM, 0, 1)).toBe(`as-send:${CLAIM}:0`);
    expect(submissionChargeKey(CLAIM, 3, 2)).toBe(`as-send:${CLAIM}:3:r2`);
    expect(itemRefundReference(`as-send:${CLAIM}:3:r2`, 'item-1')).toBe(`as-send:${CLAIM}:3:r2:item:item-1`);
  });

  it('forwards the adjuster id only for a legacy integer external id', () => {
    expect(adjusterIdOf('42')).toBe(42);
    expect(adjusterIdOf('7c9e6679-7425-40de-944b-e07fc1f90ae7')).toBeUndefined();
    expect(adjusterIdOf(null)).toBeUndefined();
  });

  it('maps the claim, leaving blanks out', () => {
    const claim = {
      claim_number: 'CLM-1',
      insured_name: 'Pat',
      loss_type: ' ',
      coverage_type: 'ACV' as const,
      claim_type: null,
      zip_code: '90210',
      adjuster_name: null,
    };
    expect(
      remoteClaimFields(claim, { external_id: '42' }, { shopping_profile_id: 'shop', depreciation_profile_id: '' }),
    ).toEqual({
      claim_number: 'CLM-1',
      insured_name: 'Pat',
      coverage_type: 'ACV',
      zip_code: '90210',
      adjuster_id: 42,
      shopping_profile_id: 'shop',
    });
  });

  it('maps an item and its photos, primary first, none without a public base URL', () => {
    const item = {
      room_id: 'room',
      name: '',
      quantity: 0,
      brand: 'Acme',
      sku: null,
      condition: null,
      age: null,
      notes: 'note',
      estimated_price: 12.5,
      model: null,
      serial: 'S1',
      damage: null,
      item_number: 3,
    };
    expect(remoteItemFields(item)).toEqual({
      room_external_id: 'room',
      title: 'Untitled item',
      quantity: 1,
      brand: 'Acme',
      description: 'note',
      estimated_price: 12.5,
      serial: 'S1',
      item_number: 3,
    });
    const photos = [
      { id: 'p2', job_id: 'j', filename: 'b.jpg', is_primary: false, ordering: 0 },
      { id: 'p1', job_id: 'j', filename: 'a.jpg', is_primary: true, ordering: 1 },
    ];
    expect(remotePhotos(photos, 'https://inv.test/')).toEqual([
      { external_id: 'p1', url: 'https://inv.test/api/photos/j/a.jpg', is_primary: true },
      { external_id: 'p2', url: 'https://inv.test/api/photos/j/b.jpg', is_primary: false },
    ]);
    expect(remotePhotos(photos, '')).toEqual([]);
  });

  it('names failures, dry runs and deep links', () => {
    expect(claimsPlatformFailure('down')).toBeInstanceOf(RemoteFailureError);
    expect(dryRunClaimKey(CLAIM)).toMatch(/^TRAINING-[0-9A-F]{10}$/);
    expect(claimDeepLink('https://cp.test/', 'LKQ 1/2')).toBe('https://cp.test/lkq/LKQ%201%2F2');
    expect(claimDeepLink('', 'K')).toBeNull();
    expect(claimDeepLink('https://cp.test', null)).toBeNull();
  });
});
