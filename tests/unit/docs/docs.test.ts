/**
 * Covers: README.md and docs/*.md (every relative link lands on a file of the repository and, with an #anchor
 * into a markdown file, on one of its headings; every page is linked from the README) and lib/config/docs.ts
 * (docs/configuration.md is exactly the page `npm run config:docs` writes).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { renderConfigPage } from '../../../lib/config/docs';

const root = resolve(__dirname, '..', '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => `docs/${entry.name}`),
];

/** The page's lines outside fenced code blocks. */
function linesOutsideFences(markdown: string): string[] {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker?.startsWith(fence[0]) && marker.length >= fence.length) fence = null;
    else if (fence === null) kept.push(line);
  }
  return kept;
}

/** The page's prose: code blocks and inline code spans (which may run over a line break) left out. */
function prose(markdown: string): string {
  return linesOutsideFences(markdown)
    .join('\n')
    .replace(/(`+)[\s\S]*?\1/g, '');
}

/**
 * GitHub's heading anchors: the heading's text (a link's text, no tags), lower case, everything but letters,
 * digits, `_`, `-` and spaces removed, spaces to hyphens; a repeated anchor gets -1, -2, ...
 */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of linesOutsideFences(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

interface Link {
  page: string;
  target: string;
}

function relativeLinks(page: string): Link[] {
  const text = prose(readFileSync(join(root, page), 'utf8'));
  const links: Link[] = [];
  for (const match of text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1];
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ page, target });
  }
  return links;
}

/** What is wrong with a link, or null when it resolves. */
function brokenLink({ page, target }: Link): string | null {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = pathPart === '' ? join(root, page) : resolve(dirname(join(root, page)), decodeURIComponent(pathPart));
  if (file !== root && !file.startsWith(root + sep)) return 'points outside the repository';
  if (!existsSync(file)) return `no such file: ${relative(root, file)}`;
  if (anchor !== undefined && file.endsWith('.md') && !headingSlugs(readFileSync(file, 'utf8')).has(anchor))
    return `no heading #${anchor} in ${relative(root, file)}`;
  return null;
}

describe('README.md and docs/', () => {
  it('GitHub heading anchors follow its slug rules', () => {
    const slugs = headingSlugs(
      [
        '# Operations: log queries',
        '## The local start (`npm start`)',
        "## A pipeline's folder",
        '```bash',
        '# not a heading',
        '```',
        '## Setup',
        '## Setup',
      ].join('\n'),
    );
    expect([...slugs]).toEqual([
      'operations-log-queries',
      'the-local-start-npm-start',
      'a-pipelines-folder',
      'setup',
      'setup-1',
    ]);
  });

  it('finds the links of a page and refuses the broken ones', () => {
    expect(brokenLink({ page: 'docs/testing.md', target: '../README.md#two-commands' })).toBeNull();
    expect(brokenLink({ page: 'docs/testing.md', target: '../README.md#no-such-heading' })).toMatch(/no heading/);
    expect(brokenLink({ page: 'docs/testing.md', target: 'README.md' })).toMatch(/no such file: docs\/README\.md/);
    expect(brokenLink({ page: 'README.md', target: '../shared/x.md' })).toMatch(/outside the repository/);
    expect(relativeLinks('README.md').map((link) => link.target)).toContain('docs/configuration.md');
  });

  it.each(pages)('%s: every relative link resolves', (page) => {
    const broken = relativeLinks(page)
      .map((link) => ({ link: link.target, problem: brokenLink(link) }))
      .filter((entry) => entry.problem !== null);
    expect(broken).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(relativeLinks('README.md').map((link) => link.target.split('#')[0]));
    expect(pages.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('docs/configuration.md is what `npm run config:docs` writes', () => {
    expect(readFileSync(join(root, 'docs', 'configuration.md'), 'utf8')).toBe(renderConfigPage());
  });
});
