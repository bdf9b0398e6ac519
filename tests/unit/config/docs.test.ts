/** Covers: lib/config/docs.ts, lib/config/descriptions.ts (.env.example and the README table stay generated). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_NAMES } from '../../../lib/config';
import { SETTING_GROUPS } from '../../../lib/config/descriptions';
import { readmeWithTable, renderEnvExample } from '../../../lib/config/docs';

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

  it("README's configuration table is what the schema renders", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toBe(readmeWithTable(readme));
  });
});
