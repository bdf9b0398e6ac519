/**
 * The API reference as a person sees it: headless Chromium opens
 * GET /api/docs on the local service (no sign-in) and the page, under its own
 * strict CSP, renders the OpenAPI document with Swagger UI:
 *  - no console error, no page error, no CSP violation, and no request to
 *    any host but the service;
 *  - every tag of the document is listed;
 *  - an opened operation shows its request body's fields (the schema) and
 *    its examples;
 *  - "Try it out" calls the service on the page's own origin.
 *
 * Needs Chromium at /usr/bin/chromium (CHROMIUM_PATH overrides); .ci/run
 * installs it. Without it the file is skipped with a message, never passed.
 */
import type { Browser, Page } from 'playwright-core';
import { request, serviceUrl } from '../support/api';
import { CHROMIUM_PATH, chromiumAvailable, launchChromium } from '../support/browser';

const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
if (!chromiumAvailable()) {
  // Loud on purpose: a skipped browser suite must never look like a pass.
  console.warn(
    `SKIPPED tests/e2e/api-reference-browser.test.ts: no Chromium at ${CHROMIUM_PATH}. Install it with \`apt-get install chromium\` (.ci/run does).`,
  );
}

// (tsconfig has no DOM lib: browser globals are reached through globalThis)
type AnyGlobal = any;

describeWithChromium('the API reference page in headless Chromium', () => {
  let browser: Browser | undefined;
  let page: Page;
  let origin: string;
  const problems: string[] = [];
  const elsewhere: string[] = [];
  let documentTags: string[];

  /** The CSP violations the page reported so far. */
  const violations = () => page.evaluate(() => (globalThis as AnyGlobal).__cspViolations as string[]);

  beforeAll(async () => {
    const doc = await request('GET', '/api/openapi.json');
    expect(doc.status).toBe(200);
    documentTags = (doc.body.tags as { name: string }[]).map((t) => t.name);
    origin = new URL(serviceUrl()).origin;

    browser = await launchChromium(Number(new URL(serviceUrl()).port));
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(`${origin}/`) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    // Recorded from before the page's first script; the listener is added by the browser, outside the page's CSP.
    await page.addInitScript(() => {
      const g = globalThis as AnyGlobal;
      g.__cspViolations = [];
      g.document.addEventListener('securitypolicyviolation', (e: AnyGlobal) =>
        g.__cspViolations.push(
          `${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`,
        ),
      );
    });
    const res = await page.goto(`${origin}/api/docs`);
    expect(res?.status()).toBe(200);
    // Swagger UI fetches the document and renders a heading per tag (folded: the page opens on the tags).
    await page.waitForSelector('h3.opblock-tag', { timeout: 30_000 });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('renders the document with no console error, no CSP violation and nothing loaded from elsewhere', async () => {
    expect(await page.locator('.info .title').textContent()).toMatch(/^Contents Inventory Service/);
    expect(problems).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(elsewhere).toEqual([]);
  });

  it('lists every tag of the OpenAPI document', async () => {
    const shown = await page
      .locator('h3.opblock-tag')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-tag')));
    expect(documentTags.length).toBeGreaterThan(10);
    expect(shown).toEqual(documentTags);
  });

  it('shows an opened operation’s request body fields and its examples', async () => {
    await page.locator('h3.opblock-tag[data-tag="uploads"]').click();
    const operation = page.locator('#operations-uploads-initUpload');
    await operation.locator('.opblock-summary').click();
    const body = operation.locator('.opblock-section-request-body');
    // The example value is what a client sends; the Schema tab lists the body's fields.
    await body.locator('.highlight-code').first().waitFor();
    const example = await body.textContent();
    // The contract's named examples (lib/uploads/examples.ts), the first one shown as the value to send.
    expect(example).toContain('A walkthrough video of a room');
    expect(example).toContain('"filename": "living-room-walkthrough.mp4"');
    await body.locator('button[data-name="model"]').click();
    const schema = await body.locator('.model-box').textContent();
    for (const field of ['kind', 'filename', 'room_id', 'total_size'])
      expect([field, schema]).toEqual([field, expect.stringContaining(field)]);
    expect(problems).toEqual([]);
    expect(await violations()).toEqual([]);
  });

  it('tries a call on the page’s own origin', async () => {
    await page.locator('h3.opblock-tag[data-tag="health"]').click();
    const operation = page.locator('#operations-health-pipelineHealth');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    expect((await operation.locator('.request-url pre').textContent())?.trim()).toBe(`${origin}/api/health/pipeline`);
    expect(problems).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
});
