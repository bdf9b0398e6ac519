/**
 * The contents list's own grouping: photos the document files under one
 * label (in one room) are one item, so they land in the grouping pile
 * already grouped. A label with more photos than an item may hold is cut
 * into balanced blocks (lib/photos/split-rules.ts); every block keeps the
 * item's key, description and room, so the blocks can still be told apart
 * from other items and joined again by hand.
 */
import { createHash } from 'node:crypto';
import { splitBalanced } from '../../../photos/split-rules';
import type { PdfPhotoFinding } from '../finding';

export interface GroupedFinding {
  finding: PdfPhotoFinding;
  groupIndex: number;
  /** Stable key of the (room, label) item, the same in every block and every import; null for an unlabeled photo. */
  sourceItemKey: string | null;
  /** The item's label as first printed (spaces collapsed), the same in every block; null for an unlabeled photo. */
  sourceLabel: string | null;
  /** The photo's caption, or else the first caption of its item: every block of an item carries one. */
  sourceDescription: string | null;
  /** The item's room as first printed (trimmed), the same in every block. */
  sourceRoom: string | null;
}

/** Printed text as a key: spaces collapsed, trimmed, case folded; blank is none. */
function keyText(text: string | null): string | null {
  const key = text?.replace(/\s+/g, ' ').trim().toLowerCase();
  return key ? key : null;
}

const printed = (text: string | null) => text?.replace(/\s+/g, ' ').trim() || null;

/** A stable key of (room, label): the same text in another import gives the same key. */
export function sourceItemKey(room: string | null, label: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([keyText(room), keyText(label)]))
    .digest('hex');
  return `pdf-${digest.slice(0, 24)}`;
}

interface Item {
  key: string | null;
  /** The label as first printed. */
  label: string | null;
  members: number[];
}

/**
 * Each finding with its group, in the order given. Findings group by (room,
 * label), both compared with spaces collapsed and case ignored ('Dining
 * chair' and 'DINING  CHAIR' in one room are one item; the same label in two
 * rooms is two). A finding without a label is a group of its own. Items are
 * numbered in the order they are first seen, from firstGroupIndex; an item
 * over maxPerItem photos takes one index per balanced block.
 */
export function groupFindings(
  findings: readonly PdfPhotoFinding[],
  options: { maxPerItem: number; firstGroupIndex: number },
): GroupedFinding[] {
  const items: Item[] = [];
  const byKey = new Map<string, Item>();
  findings.forEach((finding, i) => {
    const label = keyText(finding.label);
    if (label === null) {
      items.push({ key: null, label: null, members: [i] });
      return;
    }
    const key = sourceItemKey(finding.room, label);
    const item = byKey.get(key);
    if (item) item.members.push(i);
    else {
      const opened = { key, label: printed(finding.label), members: [i] };
      byKey.set(key, opened);
      items.push(opened);
    }
  });

  const out: GroupedFinding[] = new Array(findings.length);
  let next = options.firstGroupIndex;
  for (const item of items) {
    const members = item.members.map((i) => findings[i]);
    const description = members.map((f) => printed(f.description)).find((d) => d !== null) ?? null;
    const room = members.map((f) => printed(f.room)).find((r) => r !== null) ?? null;
    for (const block of splitBalanced(item.members, options.maxPerItem)) {
      for (const i of block) {
        out[i] = {
          finding: findings[i],
          groupIndex: next,
          sourceItemKey: item.key,
          sourceLabel: item.label,
          sourceDescription: printed(findings[i].description) ?? description,
          sourceRoom: room,
        };
      }
      next += 1;
    }
  }
  return out;
}
