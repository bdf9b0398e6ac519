/**
 * Covers: the request and answer examples of the route contracts (`examples`, lib/http/route.ts) and how the
 * OpenAPI document carries them (lib/http/openapi.ts). Every example parses with its own schema: a body example
 * with the schema the handler validates the body with, an answer example with the route's documented response
 * schema. (Spectral checks them once more against the generated JSON Schemas: openapi-lint.test.ts.)
 */
import { routeTable } from '../../../lib/api/route-table';
import { serviceApi } from '../../../lib/http/docs-routes';
import { openApiDocument } from '../../../lib/http/openapi';
import type { RouteContract } from '../../../lib/http/route';

const label = (r: RouteContract) => `${r.method} ${r.path} (${r.name})`;

const examplesOf = (which: 'body' | 'response') =>
  routeTable.flatMap((route) =>
    Object.entries(route.examples?.[which] ?? {}).map(
      ([name, example]) => [`${label(route)} ${which} example ${name}`, route, example] as const,
    ),
  );

/** The routes a client cannot call right from the schema alone: uploads, sends, imports, the homeowner wizard, the admin job lists' paging. */
const MUST_HAVE_EXAMPLES = [
  'initUpload',
  'uploadVideo',
  'uploadAudio',
  'uploadPartUrls',
  'completeUpload',
  'claimsPlatformQuote',
  'submitToClaimsPlatform',
  'submitToEstimationPlatform',
  'importContentsList',
  'confirmImport',
  'importFromCaptureSource',
  'insuredWizardState',
  'insuredIdentify',
  'insuredAddRoom',
  'insuredAddRoomFile',
  'insuredAddItem',
  'insuredEditItem',
  'insuredUploadInit',
  'insuredUploadPartUrls',
  'insuredUploadComplete',
  'insuredSubmit',
  'adminJobLogs',
  'adminMedia',
  'adminApiRequests',
];

describe('route examples', () => {
  it('are declared on the routes whose schema alone does not show a client what to send', () => {
    const withExamples = routeTable.filter(
      (r) => Object.keys(r.examples?.body ?? {}).length || Object.keys(r.examples?.response ?? {}).length,
    );
    expect(withExamples.map((r) => r.name)).toEqual(expect.arrayContaining(MUST_HAVE_EXAMPLES));
    // A route with a body has body examples, a route with a response has answer examples.
    const missing = routeTable
      .filter((r) => MUST_HAVE_EXAMPLES.includes(r.name))
      .flatMap((r) => [
        ...(r.body && !Object.keys(r.examples?.body ?? {}).length ? [`${label(r)}: body`] : []),
        ...(r.response && !Object.keys(r.examples?.response ?? {}).length ? [`${label(r)}: response`] : []),
      ]);
    expect(missing).toEqual([]);
  });

  it('declare examples only where the route has the schema they show', () => {
    const stray = routeTable
      .filter((r) => (r.examples?.body && !r.body) || (r.examples?.response && !r.response))
      .map(label);
    expect(stray).toEqual([]);
  });

  it.each(examplesOf('body'))('%s parses with the body schema', (_label, route, example) => {
    const parsed = route.body!.safeParse(example.value);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(example.summary.trim()).not.toBe('');
  });

  it.each(examplesOf('response'))('%s parses with the response schema', (_label, route, example) => {
    const parsed = route.response!.safeParse(example.value);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(example.summary.trim()).not.toBe('');
  });

  it('are in the OpenAPI document beside the schemas, by name with their summary', () => {
    const doc = openApiDocument(routeTable, serviceApi);
    type Media = { examples?: Record<string, { summary: string; value: unknown }> };
    type Operation = {
      requestBody?: { content: Record<string, Media> };
      responses: Record<string, { content?: Record<string, Media> }>;
    };
    const paths = doc.paths as Record<string, Record<string, Operation>>;
    for (const route of routeTable.filter((r) => r.examples)) {
      const operation = paths[route.path][route.method.toLowerCase()];
      const body = operation.requestBody?.content['application/json'].examples ?? {};
      const answer =
        operation.responses[String(route.successStatus ?? 200)].content?.['application/json'].examples ?? {};
      expect([label(route), body]).toEqual([label(route), route.examples?.body ?? {}]);
      expect([label(route), answer]).toEqual([label(route), route.examples?.response ?? {}]);
    }
  });
});
