/** The orchestrator guide (docs/orchestrator.md) shows the example pipeline the suite compiles and runs, word for word. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

it("embeds the example pipeline's current declaration", () => {
  const guide = readFileSync(join(root, 'docs/orchestrator.md'), 'utf8');
  const embedded = /<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```\n<!-- end of example -->/.exec(guide);
  expect(embedded).not.toBeNull();
  const [, path, code] = embedded as RegExpExecArray;
  expect(code).toBe(readFileSync(join(root, path), 'utf8'));
});
