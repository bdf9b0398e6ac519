/**
 * Homeowner link tokens never survive the scrubber, whatever their letters:
 * tokens are made as the service makes them (lib/insured/service.ts: 32
 * random bytes, base64url), put in text as an unhandled error's message, a
 * stack, a log line and the wizard's URLs carry them, and looked for in what
 * scrubText, scrubEvent and scrubLogAttributes give back. The old rule
 * masked a long run only when it held a digit, so about one token in 1,500
 * (43 characters, none a digit) went through.
 */
import fc from 'fast-check';
import { scrubEvent, scrubLogAttributes, scrubText } from '../../../lib/observability/scrub-rules';

const serviceToken = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => Buffer.from(bytes).toString('base64url'));

const PLACES: ((token: string) => string)[] = [
  (t) => `Unhandled error: TypeError: Cannot read properties of undefined (reading 'rooms') for link ${t}`,
  (t) => `Error: no live link ${t}\n    at wizardState (/var/task/functions/api/insured/insured-wizard-state.js:1:2)`,
  (t) => `GET https://app.example.test/insured/${t}`,
  (t) => `fetch failed for http://localhost:3000/api/public/insured/${t}/rooms?x=1`,
  (t) => `POST /api/public/insured/${t}#files`,
  (t) => `{"url":"/insured/${t}","status":404}`,
  (t) => `link '${t}' expired`,
  (t) => `${t}`,
];

const RUNS = { numRuns: 3000 };

it('masks every service-made token in error messages, stacks and URLs', () => {
  fc.assert(
    fc.property(serviceToken, fc.constantFrom(...PLACES), (token, place) => {
      expect(scrubText(place(token))).not.toContain(token);
    }),
    RUNS,
  );
});

it('masks them in error reports and log lines too', () => {
  fc.assert(
    fc.property(serviceToken, fc.constantFrom(...PLACES), (token, place) => {
      const event = scrubEvent({
        exception: { values: [{ type: 'Error', value: place(token) }] },
        extra: { url: place(token) },
      });
      const line = scrubLogAttributes({ message: place(token), path: place(token) });
      expect(JSON.stringify([event, line])).not.toContain(token);
    }),
    RUNS,
  );
});

it('masks a token without a digit, by position and by shape', () => {
  const lettersOnly = 'AbcdEfghIjklMnopQrstUvwxYzabCdefGhijKlmnOpq';
  expect(lettersOnly).toMatch(/^[A-Za-z]{43}$/);
  expect(scrubText(`GET /api/public/insured/${lettersOnly}/rooms`)).toBe('GET /api/public/insured/[token]/rooms');
  expect(scrubText(`no link ${lettersOnly} here`)).toBe('no link [token] here');
});

it('keeps UUIDs, masked segments, route templates and ordinary words', () => {
  const id = '2c1f6b0e-8a1d-4b6e-9d3a-0f4c5b6a7e8d';
  expect(scrubText(`/api/public/insured/[credential]/rooms/${id}`)).toBe(
    `/api/public/insured/[credential]/rooms/${id}`,
  );
  expect(scrubText('GET /api/public/insured/{token}/files/{file_id}')).toBe(
    'GET /api/public/insured/{token}/files/{file_id}',
  );
  expect(scrubText(`/insured/${id}`)).toBe(`/insured/${id}`);
  expect(scrubText('The analyze stage failed: HTTP 503 after 4 attempts')).toBe(
    'The analyze stage failed: HTTP 503 after 4 attempts',
  );
});
