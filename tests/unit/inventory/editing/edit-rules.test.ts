/** Covers: lib/inventory/editing/edit-rules.ts (and the bodies of lib/inventory/editing/edit-schemas.ts) */
import {
  approvalChangeOf,
  approvalLabelOf,
  archiveChangeOf,
  archiveProblemOf,
  autoApprovalPicksOf,
  bulkPlanOf,
  editChangeOf,
  editLabelOf,
  ITEM_SUBMITTED_NOT_ARCHIVABLE,
  itemEditOf,
  itemSnapshotOf,
  itemsSnapshotOf,
  itemsTargetOf,
  itemTargetOf,
  MAX_SNAPSHOT_BYTES,
  revisionOf,
  snapshotFits,
} from '../../../../lib/inventory/editing/edit-rules';
import { approveBody, bulkBody, itemPatchBody } from '../../../../lib/inventory/editing/edit-schemas';
import type { InventoryItem } from '../../../../lib/inventory/item-record-rules';
import { DEFAULT_AUTOMATION_SETTINGS } from '../../../../lib/settings/automation-schemas';
import { itemRecord } from '../../../support/items';

const item = itemRecord;

describe('item patch body', () => {
  const problems = (body: unknown) => {
    const r = itemPatchBody.safeParse(body);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('accepts any editable field, trims text, and takes null to clear optional ones', () => {
    expect(itemPatchBody.parse({ name: '  Lamp ', brand: null, estimated_price: 0, quantity: 3 })).toEqual({
      name: 'Lamp',
      brand: null,
      estimated_price: 0,
      quantity: 3,
    });
  });

  it('refuses unknown fields, wrong types, bad quantities, negative prices, an empty body and both names', () => {
    expect(problems({ colour: 'red' }).join()).toMatch(/colour|Unrecognized/);
    expect(problems({ quantity: '2' })).toEqual(['quantity: must be a number']);
    expect(problems({ quantity: 0 })).toEqual(['quantity: must be at least 1']);
    expect(problems({ quantity: -1 })).toEqual(['quantity: must be at least 1']);
    expect(problems({ quantity: 1.5 })).toEqual(['quantity: must be a whole number']);
    expect(problems({ estimated_price: -0.01 })).toEqual(['estimated_price: must not be negative']);
    expect(problems({ name: '   ' })).toEqual(['name: must not be empty']);
    expect(problems({ name: null })).toEqual(['name: must be text']);
    expect(problems({})).toEqual([': must change at least one field']);
    expect(problems({ name: 'A', title: 'B' })).toEqual(['title: give name or title, not both']);
  });

  it('bulk: 1 to 500 uuids and the same patch rules; approve: approved or needs_review', () => {
    const id = '00000000-0000-4000-8000-000000000001';
    expect(bulkBody.safeParse({ item_ids: [id], patch: { condition: 'Good' } }).success).toBe(true);
    expect(bulkBody.safeParse({ item_ids: [], patch: { condition: 'Good' } }).success).toBe(false);
    expect(bulkBody.safeParse({ item_ids: Array(501).fill(id), patch: { condition: 'Good' } }).success).toBe(false);
    expect(bulkBody.safeParse({ item_ids: ['nope'], patch: { condition: 'Good' } }).success).toBe(false);
    expect(bulkBody.safeParse({ item_ids: [id], patch: {} }).success).toBe(false);
    expect(bulkBody.safeParse({ item_ids: [id], patch: { quantity: -2 } }).success).toBe(false);
    expect(approveBody.safeParse({ item_id: id, approved: true }).success).toBe(true);
    expect(approveBody.safeParse({ item_id: id, needs_review: true }).success).toBe(true);
    expect(approveBody.safeParse({ item_id: id }).success).toBe(false);
    expect(approveBody.safeParse({ item_id: id, approved: 'yes' }).success).toBe(false);
  });
});

describe('itemEditOf', () => {
  it('keeps the given fields and maps title onto name', () => {
    expect(itemEditOf({ title: 'Desk', notes: null })).toEqual({ name: 'Desk', notes: null });
    expect(itemEditOf({ name: 'Chair', quantity: 2 })).toEqual({ name: 'Chair', quantity: 2 });
  });
});

describe('editChangeOf and editLabelOf', () => {
  it('writes only what differs, marks the item reviewed, and records the values it replaces', () => {
    const sofa = item({ name: 'Sofa', quantity: 1, brand: 'Ikea' });
    const change = editChangeOf(sofa, { name: 'Couch', quantity: 1, brand: null });
    expect(change).toEqual({
      fields: { name: 'Couch', brand: null, reviewed: true },
      before: { name: 'Sofa', brand: 'Ikea', reviewed: false },
    });
    expect(editLabelOf(change!)).toBe('Edited item (name, brand)');
  });

  it('treats a missing field as null and is null when nothing would change', () => {
    const old = item({ reviewed: true });
    delete (old as Partial<InventoryItem>).sku;
    expect(editChangeOf(old, { sku: null, name: 'Sofa' })).toBeNull();
    expect(editChangeOf(old, { sku: 'X1' })).toEqual({ fields: { sku: 'X1' }, before: { sku: null } });
  });

  it('names an edit that only marks the item reviewed', () => {
    const change = editChangeOf(item(), { name: 'Sofa' });
    expect(change).toEqual({ fields: { reviewed: true }, before: { reviewed: false } });
    expect(editLabelOf(change!)).toBe('Marked item reviewed');
  });
});

describe('archiving', () => {
  it('refuses a submitted item', () => {
    expect(archiveProblemOf(item({ claims_platform_submitted_at: '2024-02-01T00:00:00Z' }))).toBe(
      ITEM_SUBMITTED_NOT_ARCHIVABLE,
    );
    expect(archiveProblemOf(item())).toBeNull();
  });

  it('archives and unarchives, and does nothing when the item is already there', () => {
    const at = '2024-03-01T00:00:00.000Z';
    expect(archiveChangeOf(item(), true, at)).toEqual({
      fields: { is_archived: true, archived_at: at },
      before: { is_archived: false, archived_at: null },
    });
    expect(archiveChangeOf(item({ is_archived: true, archived_at: at }), false, '')).toEqual({
      fields: { is_archived: false, archived_at: null },
      before: { is_archived: true, archived_at: at },
    });
    expect(archiveChangeOf(item({ is_archived: true, archived_at: at }), true, at)).toBeNull();
    expect(archiveChangeOf(item(), false, '')).toBeNull();
  });
});

describe('approval', () => {
  it('approves, unapproves, flags and clears the flag, naming what it did', () => {
    const approve = approvalChangeOf(item(), { approved: true });
    expect(approve).toEqual({ fields: { approved: true }, before: { approved: false } });
    expect(approvalLabelOf(approve!)).toBe('Approved item');
    const unapprove = approvalChangeOf(item({ approved: true }), { approved: false, needs_review: true });
    expect(unapprove).toEqual({
      fields: { approved: false, needs_review: true },
      before: { approved: true, needs_review: false },
    });
    expect(approvalLabelOf(unapprove!)).toBe('Unapproved item, flagged it for review');
    expect(approvalLabelOf(approvalChangeOf(item({ needs_review: true }), { needs_review: false })!)).toBe(
      'Cleared its review flag',
    );
    expect(approvalChangeOf(item({ approved: true }), { approved: true })).toBeNull();
  });
});

describe('targets', () => {
  it('names one item and several items', () => {
    expect(itemTargetOf({ item_number: 4, name: 'Lamp' })).toBe('Item #4 Lamp');
    expect(itemsTargetOf([{ item_number: 5 }, { item_number: 2 }])).toBe('Items #2, #5');
    const many = Array.from({ length: 13 }, (_, i) => ({ item_number: i + 1 }));
    expect(itemsTargetOf(many)).toBe('Items #1, #2, #3, #4, #5, #6, #7, #8, #9, #10 and 3 more');
  });
});

describe('bulkPlanOf', () => {
  it('skips submitted items, counts unchanged ones, and plans the rest', () => {
    const submitted = item({ claims_platform_submitted_at: '2024-02-01T00:00:00Z' });
    const same = item({ condition: 'Good', reviewed: true });
    const other = item({ condition: 'Poor' });
    const plan = bulkPlanOf([submitted, same, other], { condition: 'Good' });
    expect(plan.skipped).toEqual([submitted.id]);
    expect(plan.unchanged).toEqual([same.id]);
    expect(plan.changes).toEqual([
      {
        item: other,
        change: { fields: { condition: 'Good', reviewed: true }, before: { condition: 'Poor', reviewed: false } },
      },
    ]);
  });

  it('says when the undo record would be too large for one activity entry', () => {
    expect(snapshotFits([{ id: 'a', before: { notes: 'short' } }])).toBe(true);
    expect(snapshotFits([{ id: 'a', before: { notes: 'x'.repeat(MAX_SNAPSHOT_BYTES) } }])).toBe(false);
  });
});

describe('autoApprovalPicksOf', () => {
  const rules = { ...DEFAULT_AUTOMATION_SETTINGS.auto_approve, enabled: true, min_confidence: 0.8 };

  it('picks unapproved, unarchived items that pass the rules', () => {
    const good = item({ confidence: 0.95 });
    const archived = item({ confidence: 0.95, is_archived: true });
    const approved = item({ confidence: 0.95, approved: true });
    const unsure = item({ confidence: 0.7 });
    expect(autoApprovalPicksOf([good, archived, approved, unsure], rules)).toEqual([good]);
    expect(autoApprovalPicksOf([good], null)).toEqual([]);
  });
});

describe('undo records', () => {
  it('reads the revision, 0 when a row has none', () => {
    expect(revisionOf({ rev: 3 })).toBe(3);
    expect(revisionOf({})).toBe(0);
  });

  it('reads a one-item record and keeps only fields an action may write', () => {
    expect(itemSnapshotOf({ before: { name: 'Sofa', team_id: 'other', approved: true }, rev: 2 })).toEqual({
      before: { name: 'Sofa', approved: true },
      rev: 2,
    });
    expect(itemSnapshotOf(null)).toBeNull();
    expect(itemSnapshotOf({ before: { name: 'Sofa' } })).toBeNull();
    expect(itemSnapshotOf({ before: ['name'], rev: 1 })).toBeNull();
    expect(itemSnapshotOf({ before: 'name', rev: 1 })).toBeNull();
  });

  it('reads a multi-item record, and nothing from a broken one', () => {
    const entry = { id: 'a', before: { approved: false }, rev: 4 };
    expect(itemsSnapshotOf({ items: [entry] })).toEqual([entry]);
    expect(itemsSnapshotOf({ items: [] })).toBeNull();
    expect(itemsSnapshotOf({ items: 'a' })).toBeNull();
    expect(itemsSnapshotOf(null)).toBeNull();
    expect(itemsSnapshotOf({ items: [entry, { before: {}, rev: 1 }] })).toBeNull();
    expect(itemsSnapshotOf({ items: [null] })).toBeNull();
  });
});
