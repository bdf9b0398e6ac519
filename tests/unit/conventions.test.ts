/** Project conventions that keep handlers thin and bundles small. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('conventions', () => {
  it('imports zod as a namespace (the named import pulls all of zod into every bundle)', () => {
    const offenders = [...sources(join(root, 'lib')), ...sources(join(root, 'functions'))].filter((file) =>
      /import\s*\{\s*z\s*\}\s*from\s*['"]zod['"]/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((f) => relative(root, f))).toEqual([]);
  });

  it('keeps handlers thin: no AWS SDK or database access in functions/', () => {
    const offenders = sources(join(root, 'functions')).filter((file) =>
      /from\s+['"]@aws-sdk\/|lib\/db\//.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((f) => relative(root, f))).toEqual([]);
  });
});
