/**
 * Every outbound HTTP request in lib/ goes through the one core, lib/observability/outbound-http.ts (docs/architecture.md:
 * Outbound HTTP, with undici's fetch for a caller's own connection pool in lib/observability/outbound-undici.ts), so
 * timeouts, retries, the redirect policy, the byte cap and scrubbed error text cannot be skipped by a hand-written
 * client. No other file calls fetch (global or undici's), undici's request, http(s).request or .get, and
 * the one presign helper (lib/blob/presigned-post.ts) alone calls createPresignedPost. The check is a function of the
 * file list, also run on made-up files that must be reported.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const root = join(__dirname, '..', '..', '..');

const CORE = 'lib/observability/outbound-http.ts';
/** The core's other half: undici's fetch, for a call with its own connection pool, kept out of every bundle. */
const CORE_UNDICI = 'lib/observability/outbound-undici.ts';
const PRESIGN = 'lib/blob/presigned-post.ts';

interface Source {
  path: string;
  text: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [relative(root, path).split(sep).join('/')] : [];
  });
}

/** The code without its comments (block comments, and line comments on lines of their own or after code). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[\s;{}(),])\/\/.*$/gm, '$1');

/** Names imported from a module, by `import { a, b as c } from 'm'` or `const { a } = require('m')`. */
function importedNames(text: string, modules: RegExp): string[] {
  const found = text.matchAll(
    /(?:import\s+(?:type\s+)?(?:\w+\s*,\s*)?\{([^}]*)\}\s*from\s*|\{([^}]*)\}\s*=\s*require\(\s*)['"]([^'"]+)['"]/g,
  );
  return [...found]
    .filter((m) => modules.test(m[3]))
    .flatMap((m) => (m[1] ?? m[2]).split(','))
    .map((name) =>
      name
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)[0]
        .trim(),
    )
    .filter(Boolean);
}

/** What a file does that only the core may: each finding names the file and the call. */
function outboundBypasses(files: Source[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (path === CORE || path === CORE_UNDICI) continue;
    const body = code(text);
    const say = (what: string) => found.push(`${path}: ${what}`);
    if (/\bfetch\s*\(/.test(body)) say('fetch(');
    const fromUndici = importedNames(body, /^undici$/).filter((name) => name === 'fetch' || name === 'request');
    for (const name of fromUndici) say(`undici's ${name}`);
    if (/\bundici\s*\.\s*(fetch|request)\b/.test(body)) say("undici's fetch or request");
    if (/\bhttps?\s*\.\s*(request|get)\s*\(/.test(body)) say('http(s).request or .get');
    const fromHttp = importedNames(body, /^(node:)?https?$/).filter((name) => name === 'request' || name === 'get');
    for (const name of fromHttp) say(`http(s)'s ${name}`);
    if (path !== PRESIGN && /\bcreatePresignedPost\b/.test(body)) say('createPresignedPost');
  }
  return found;
}

describe('outbound HTTP goes through the core', () => {
  it('no file in lib/ but the core sends a request itself', () => {
    const files = sources(join(root, 'lib')).map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
    expect(files.some((f) => f.path === CORE)).toBe(true);
    expect(outboundBypasses(files)).toEqual([]);
  });

  it('reports each way around it', () => {
    const files: Source[] = [
      { path: 'lib/a/global.ts', text: 'const res = await fetch(url, { method: "POST" });' },
      { path: 'lib/a/own.ts', text: 'return this.fetch(url);' },
      { path: 'lib/a/undici.ts', text: "import { Agent, request } from 'undici';\nawait request(url);" },
      { path: 'lib/a/undici-fetch.ts', text: "import { fetch as send } from 'undici';" },
      { path: 'lib/a/undici-ns.ts', text: "import * as undici from 'undici';\nundici.request(url);" },
      { path: 'lib/a/http.ts', text: "import https from 'node:https';\nhttps.request(options);" },
      { path: 'lib/a/http-named.ts', text: "import { get } from 'node:http';" },
      { path: 'lib/a/presign.ts', text: "import { createPresignedPost } from '@aws-sdk/s3-presigned-post';" },
    ];
    expect(outboundBypasses(files)).toEqual([
      'lib/a/global.ts: fetch(',
      'lib/a/own.ts: fetch(',
      "lib/a/undici.ts: undici's request",
      "lib/a/undici-fetch.ts: undici's fetch",
      "lib/a/undici-ns.ts: undici's fetch or request",
      'lib/a/http.ts: http(s).request or .get',
      "lib/a/http-named.ts: http(s)'s get",
      'lib/a/presign.ts: createPresignedPost',
    ]);
  });

  it('leaves the core, the presign helper, comments and look-alikes alone', () => {
    const files: Source[] = [
      { path: CORE, text: 'await fetch(url, init);' },
      { path: PRESIGN, text: 'await createPresignedPost(client, {});' },
      {
        path: 'lib/a/doc.ts',
        text: '/** Never calls fetch( itself. */\n// nor https.request(x)\nconst u = "https://x";',
      },
      {
        path: 'lib/a/names.ts',
        text: "import { Agent } from 'undici';\nawait fetchSecrets();\nconst o = { fetch: f };",
      },
    ];
    expect(outboundBypasses(files)).toEqual([]);
  });
});
