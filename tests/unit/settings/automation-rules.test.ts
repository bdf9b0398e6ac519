/** Covers: lib/settings/automation-rules.ts, lib/settings/automation-schemas.ts */
import { automationChangeLabel, describeAutomationChanges } from '../../../lib/settings/automation-rules';
import {
  type AutomationSettings,
  autoApproveRulesSchema,
  automationSettingsSchema,
  DEFAULT_AUTOMATION_SETTINGS,
} from '../../../lib/settings/automation-schemas';

describe('automation settings schema', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_AUTOMATION_SETTINGS).toEqual({
      auto_approve: {
        enabled: false,
        min_confidence: 0.85,
        require_price: false,
        max_estimated_price: null,
        exclude_name_keywords: [],
      },
    });
    expect(automationSettingsSchema.parse({ auto_approve: { enabled: true } }).auto_approve).toMatchObject({
      enabled: true,
      min_confidence: 0.85,
    });
  });

  it.each([
    [{ min_confidence: 1.2 }, 'auto_approve.min_confidence', 'must be between 0 and 1'],
    [{ min_confidence: -0.1 }, 'auto_approve.min_confidence', 'must be between 0 and 1'],
    [{ min_confidence: '0.9' }, 'auto_approve.min_confidence', 'must be a number'],
    [{ enabled: 'yes' }, 'auto_approve.enabled', 'must be true or false'],
    [{ max_estimated_price: -5 }, 'auto_approve.max_estimated_price', 'must not be negative'],
    [{ exclude_name_keywords: ['  '] }, 'auto_approve.exclude_name_keywords.0', 'must not be blank'],
    [
      { exclude_name_keywords: ['k'.repeat(61)] },
      'auto_approve.exclude_name_keywords.0',
      'must be at most 60 characters',
    ],
    [
      { exclude_name_keywords: Array.from({ length: 51 }, (_, i) => `k${i}`) },
      'auto_approve.exclude_name_keywords',
      'at most 50 keywords',
    ],
  ])('refuses %j', (rules, path, message) => {
    const result = automationSettingsSchema.safeParse({ auto_approve: rules });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))).toEqual([
      { path, message },
    ]);
  });

  it('accepts the edges', () => {
    expect(
      autoApproveRulesSchema.safeParse({
        min_confidence: 0,
        max_estimated_price: 0,
        exclude_name_keywords: Array.from({ length: 50 }, () => 'k'.repeat(60)),
      }).success,
    ).toBe(true);
    expect(autoApproveRulesSchema.safeParse({ min_confidence: 1 }).success).toBe(true);
  });

  it('labels what changed', () => {
    const after = {
      auto_approve: {
        ...DEFAULT_AUTOMATION_SETTINGS.auto_approve,
        enabled: true,
        min_confidence: 0.9,
        max_estimated_price: 500,
        exclude_name_keywords: ['Jewelry'],
      },
    };
    expect(describeAutomationChanges(DEFAULT_AUTOMATION_SETTINGS, after)).toEqual([
      'turned on auto-approval',
      'minimum confidence 0.85 → 0.9',
      'price ceiling no limit → $500',
      'excluded keywords added: Jewelry',
    ]);
    expect(describeAutomationChanges(after, after)).toEqual([]);
  });
});

describe('what a change did, as the activity feed says it', () => {
  const rules = (patch: Partial<AutomationSettings['auto_approve']> = {}): AutomationSettings => ({
    auto_approve: { ...DEFAULT_AUTOMATION_SETTINGS.auto_approve, ...patch },
  });

  it('says when auto-approval was turned off, and when a price stopped or started being required', () => {
    expect(describeAutomationChanges(rules({ enabled: true }), rules())).toEqual(['turned off auto-approval']);
    expect(describeAutomationChanges(rules(), rules({ require_price: true }))).toEqual(['now requires a price']);
    expect(describeAutomationChanges(rules({ require_price: true }), rules())).toEqual(['no longer requires a price']);
  });

  it('shows the price ceiling before and after, "no limit" when there is none', () => {
    expect(describeAutomationChanges(rules({ max_estimated_price: 500 }), rules({ max_estimated_price: 250 }))).toEqual(
      ['price ceiling $500 → $250'],
    );
    expect(describeAutomationChanges(rules({ max_estimated_price: 500 }), rules())).toEqual([
      'price ceiling $500 → no limit',
    ]);
    expect(describeAutomationChanges(rules(), rules({ max_estimated_price: 0 }))).toEqual([
      'price ceiling no limit → $0',
    ]);
  });

  it('lists keywords added and removed, ignoring case', () => {
    const before = rules({ exclude_name_keywords: ['Jewelry', 'Art'] });
    expect(describeAutomationChanges(before, rules({ exclude_name_keywords: ['art', 'Firearm', 'Cash'] }))).toEqual([
      'excluded keywords added: Firearm, Cash',
      'excluded keywords removed: Jewelry',
    ]);
    expect(describeAutomationChanges(before, rules())).toEqual(['excluded keywords removed: Jewelry, Art']);
  });

  it('calls a change of case or order alone an edit of the keywords', () => {
    const before = rules({ exclude_name_keywords: ['Jewelry', 'Art'] });
    expect(describeAutomationChanges(before, rules({ exclude_name_keywords: ['jewelry', 'Art'] }))).toEqual([
      'edited the excluded keywords',
    ]);
    expect(describeAutomationChanges(before, rules({ exclude_name_keywords: ['Art', 'Jewelry'] }))).toEqual([
      'edited the excluded keywords',
    ]);
  });

  it('labels the activity entry with every change, in order', () => {
    expect(automationChangeLabel(['turned on auto-approval', 'minimum confidence 0.85 → 0.9'])).toBe(
      'Auto-approval settings: turned on auto-approval; minimum confidence 0.85 → 0.9',
    );
  });
});
