/** What a change of the automation settings did, as a person reads it in the activity feed. Pure: no I/O. */
import type { AutomationSettings } from './automation-schemas';

const money = (v: number | null) => (v === null ? 'no limit' : `$${v}`);
const keywordKey = (k: string) => k.toLowerCase();

/** What a change did, as a person reads it in the activity feed. Empty when nothing changed. */
export function describeAutomationChanges(before: AutomationSettings, after: AutomationSettings): string[] {
  const [b, a] = [before.auto_approve, after.auto_approve];
  const changes: string[] = [];
  if (b.enabled !== a.enabled) changes.push(a.enabled ? 'turned on auto-approval' : 'turned off auto-approval');
  if (b.min_confidence !== a.min_confidence)
    changes.push(`minimum confidence ${b.min_confidence} → ${a.min_confidence}`);
  if (b.require_price !== a.require_price)
    changes.push(a.require_price ? 'now requires a price' : 'no longer requires a price');
  if (b.max_estimated_price !== a.max_estimated_price)
    changes.push(`price ceiling ${money(b.max_estimated_price)} → ${money(a.max_estimated_price)}`);
  const [was, now] = [
    new Set(b.exclude_name_keywords.map(keywordKey)),
    new Set(a.exclude_name_keywords.map(keywordKey)),
  ];
  const added = a.exclude_name_keywords.filter((k) => !was.has(keywordKey(k)));
  const removed = b.exclude_name_keywords.filter((k) => !now.has(keywordKey(k)));
  if (added.length) changes.push(`excluded keywords added: ${added.join(', ')}`);
  if (removed.length) changes.push(`excluded keywords removed: ${removed.join(', ')}`);
  if (
    !added.length &&
    !removed.length &&
    JSON.stringify(b.exclude_name_keywords) !== JSON.stringify(a.exclude_name_keywords)
  )
    changes.push('edited the excluded keywords');
  return changes;
}

export const automationChangeLabel = (changes: string[]) => `Auto-approval settings: ${changes.join('; ')}`;
