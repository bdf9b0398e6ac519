/**
 * Covers: lib/config/docs.ts, lib/config/descriptions.ts (.env.example stays generated; docs/configuration.md is
 * checked with the other pages in tests/unit/docs/docs.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_NAMES } from '../../../lib/config';
import { SETTING_GROUPS } from '../../../lib/config/descriptions';
import { renderEnvExample } from '../../../lib/config/docs';

const root = join(__dirname, '..', '..', '..');

describe('configuration documents', () => {
  it('describe every setting exactly once', () => {
    const described = SETTING_GROUPS.flatMap((g) => Object.keys(g.descriptions));
    expect(new Set(described).size).toBe(described.length);
    expect([...described].sort()).toEqual([...SETTING_NAMES].sort());
  });

  it('.env.example is what the schema renders (run `npm run config:docs` after changing a setting)', () => {
    expect(readFileSync(join(root, '.env.example'), 'utf8')).toBe(renderEnvExample());
  });
});
