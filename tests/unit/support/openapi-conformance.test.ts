/** Covers: tests/support/openapi-conformance.ts (the suite-wide check of answers against the API document). */
import { ConformanceChecker, mismatchReport, type OpenApiDocument } from '../../support/openapi-conformance';

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const error = json({ $ref: '#/components/schemas/Error' });

const document: OpenApiDocument = {
  paths: {
    '/api/jobs/{id}': {
      get: {
        operationId: 'getJob',
        responses: {
          '200': json({
            type: 'object',
            properties: {
              id: { type: 'string', format: 'uuid' },
              status: { type: 'string', enum: ['queued', 'done'] },
            },
            required: ['id', 'status'],
            additionalProperties: false,
          }),
          '404': error,
        },
      },
      delete: { operationId: 'deleteJob', responses: { '200': { description: 'OK' } } },
    },
    '/api/jobs/active': {
      get: { operationId: 'activeJobs', responses: { '200': json({ type: 'array', items: { type: 'string' } }) } },
    },
    '/api/exports/{id}/download': {
      get: { operationId: 'downloadExport', responses: { '302': { description: 'Found' }, '404': error } },
    },
    '/api/docs': {
      get: {
        operationId: 'apiReference',
        responses: { '200': { content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
  },
  components: {
    schemas: {
      Error: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
    },
  },
};

const JOB_ID = '0b6f2f7e-8a4b-4c1d-9e2f-3a4b5c6d7e8f';
const checker = new ConformanceChecker(document);
const answer = (method: string, path: string, status: number, body: unknown, contentType = 'application/json') => ({
  method,
  path,
  status,
  contentType,
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('ConformanceChecker', () => {
  it('passes an answer that matches its operation, status and schema', () => {
    expect(checker.check(answer('GET', `/api/jobs/${JOB_ID}`, 200, { id: JOB_ID, status: 'done' }))).toBeNull();
    expect(
      checker.check(answer('GET', '/api/jobs/nope', 404, { detail: 'Not found' }, 'application/json; charset=utf-8')),
    ).toBeNull();
  });

  it('fails a body with a property the schema forbids, naming it', () => {
    const mismatch = checker.check(
      answer('GET', `/api/jobs/${JOB_ID}`, 200, { id: JOB_ID, status: 'done', numbering_seq: 3 }),
    );
    expect(mismatch).toEqual({
      operation: 'getJob (GET /api/jobs/{id})',
      status: 200,
      problems: ['(body) must NOT have additional properties (numbering_seq)'],
    });
  });

  it('fails a body of the wrong shape with the first few ajv errors', () => {
    const mismatch = checker.check(answer('GET', `/api/jobs/${JOB_ID}`, 200, { id: 'x', status: 'lost' }));
    expect(mismatch?.problems).toEqual([
      '/id must match format "uuid"',
      '/status must be equal to one of the allowed values (["queued","done"])',
    ]);
    expect(checker.check(answer('GET', '/api/jobs/x', 404, {}))?.problems).toEqual([
      "(body) must have required property 'detail'",
    ]);
  });

  it('fails a status the operation does not list', () => {
    expect(checker.check(answer('GET', `/api/jobs/${JOB_ID}`, 429, { detail: 'Slow down' }))).toEqual({
      operation: 'getJob (GET /api/jobs/{id})',
      status: 429,
      problems: ['status 429 is not documented (documented: 200, 404)'],
    });
  });

  it('fails a media type the status does not list, and a JSON answer that is not JSON', () => {
    expect(checker.check(answer('GET', '/api/jobs/x', 404, 'Not found', 'text/plain'))?.problems).toEqual([
      'media type text/plain is not documented for status 404 (documented: application/json)',
    ]);
    expect(checker.check(answer('GET', '/api/jobs/x', 404, '<html>'))?.problems).toEqual([
      'the body is not JSON: <html>',
    ]);
  });

  it('matches path templates by method, preferring literal segments, and ignores the query string', () => {
    expect(checker.operationFor('GET', '/api/jobs/abc')?.template).toBe('/api/jobs/{id}');
    expect(checker.operationFor('GET', '/api/jobs/active?limit=5')?.template).toBe('/api/jobs/active');
    // DELETE is documented only on the template, so /api/jobs/active reaches it there.
    expect(checker.operationFor('delete', '/api/jobs/active')?.operation.operationId).toBe('deleteJob');
    expect(checker.operationFor('GET', '/api/jobs/abc/extra')).toBeUndefined();
    expect(checker.operationFor('GET', '/api/jobs/')).toBeUndefined();
    // '..' is resolved as fetch resolves it: /api/jobs/abc/.. is /api/jobs/.
    expect(checker.operationFor('GET', '/api/jobs/abc/..')).toBeUndefined();
    expect(checker.check(answer('POST', '/api/jobs/abc', 200, {}))).toEqual({
      operation: 'POST /api/jobs/abc',
      status: 200,
      problems: ['no operation in the document has this method and path'],
    });
    // The gateway refuses a path no route has before any function runs: outside every operation.
    expect(checker.check(answer('POST', '/api/jobs/abc', 404, { message: 'Not Found' }))).toBeNull();
    expect(checker.check(answer('GET', '/api/jobs//x', 400, ''))).toBeNull();
  });

  it('checks a redirect by its status only, and a body the operation does not describe not at all', () => {
    expect(checker.check(answer('GET', '/api/exports/e1/download', 302, '', 'text/plain'))).toBeNull();
    expect(checker.check(answer('GET', '/api/exports/e1/download', 307, ''))?.problems).toEqual([
      'status 307 is not documented (documented: 302, 404)',
    ]);
    expect(checker.check(answer('DELETE', '/api/jobs/abc', 200, { anything: true }))).toBeNull();
  });

  it('validates a body that is not JSON as the text it is', () => {
    expect(checker.check(answer('GET', '/api/docs', 200, '<!doctype html>', 'text/html; charset=utf-8'))).toBeNull();
  });
});

describe('mismatchReport', () => {
  it('lists each operation, status and problem once, with the request that showed it', () => {
    const mismatch = {
      operation: 'getJob (GET /api/jobs/{id})',
      status: 429,
      problems: ['status 429 is not documented'],
    };
    const report = mismatchReport([
      { ...mismatch, request: 'GET /api/jobs/a' },
      { ...mismatch, request: 'GET /api/jobs/b' },
    ]);
    expect(report).toBe(
      [
        '1 answer(s) do not match the API document (GET /api/openapi.json):',
        '- getJob (GET /api/jobs/{id}) answered 429 to GET /api/jobs/a:',
        '    status 429 is not documented',
      ].join('\n'),
    );
  });
});

describe('answers the service did not make', () => {
  type Conformance = typeof import('../../support/openapi-conformance');
  const crash = { method: 'POST', path: '/api/jobs/a/process', contentType: 'application/json', status: 500 };
  const fresh = (): Conformance => {
    let loaded: Conformance | undefined;
    jest.isolateModules(() => {
      loaded = require('../../support/openapi-conformance');
    });
    return loaded as Conformance;
  };
  const url = process.env.TEST_SERVICE_URL;
  beforeAll(() => {
    // No stack here: an answer that reaches the document's check is reported as not checked.
    delete process.env.TEST_SERVICE_URL;
  });
  afterAll(() => {
    if (url !== undefined) process.env.TEST_SERVICE_URL = url;
  });

  it('is let through only in a file that armed a fault point, and only as the crash answer', async () => {
    const unarmed = fresh();
    unarmed.checkAnswersAgainstDocument();
    await unarmed.recordAnswer({ ...crash, text: '{"detail":"Internal server error"}' });
    expect(unarmed.conformanceReport()).toContain('answered 500 to POST /api/jobs/a/process');

    const armed = fresh();
    armed.checkAnswersAgainstDocument();
    armed.expectCrashAnswers();
    await armed.recordAnswer({ ...crash, text: '{"detail":"Internal server error"}' });
    expect(armed.conformanceReport()).toBeNull();
    await armed.recordAnswer({ ...crash, text: '{"detail":"Internal server error","stack":"at x"}' });
    expect(armed.conformanceReport()).toContain('answered 500');
  });

  it("lets the gateway's 413 through only for a body over its 10 MiB limit", async () => {
    const conformance = fresh();
    conformance.checkAnswersAgainstDocument();
    const tooLarge = { ...crash, status: 413, text: '{"message":"Request Entity Too Large"}' };
    await conformance.recordAnswer({ ...tooLarge, requestBytes: 11 * 1024 * 1024 });
    expect(conformance.conformanceReport()).toBeNull();
    await conformance.recordAnswer({ ...tooLarge, requestBytes: 1024 });
    expect(conformance.conformanceReport()).toContain('answered 413');
  });
});
