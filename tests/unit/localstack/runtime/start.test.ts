/**
 * `npm start` with LOCAL_VERBOSE=1 passes serverless offline's output
 * through: its request lines name each path, and a homeowner link's path
 * holds the link's token. They are written as the service's request log
 * writes paths (lib/http/route.ts loggablePath), the token masked.
 */
import { randomBytes } from 'node:crypto';
import { MASKED_CREDENTIAL } from '../../../../lib/http/route';

const {
  loadRequestPaths,
  maskedOfflineOutput,
  requestLineMasker,
}: {
  loadRequestPaths: () => Record<string, unknown>;
  maskedOfflineOutput: (write: (text: string) => void, mask: (text: string) => string) => (chunk: string) => void;
  requestLineMasker: (paths: Record<string, unknown>) => (text: string) => string;
} = require('../../../../localstack/runtime/start.js');

const FILE = '2c1f6b0e-8a1d-4b6e-9d3a-0f4c5b6a7e8d';
/** A token as the service makes them, and one without a digit (the kind a digit-based rule let through). */
const TOKEN = randomBytes(32).toString('base64url');
const LETTERS_TOKEN = 'AbcdEfghIjklMnopQrstUvwxYzabCdefGhijKlmnOpq';

let mask: (text: string) => string;
beforeAll(() => {
  mask = requestLineMasker(loadRequestPaths());
}, 60_000);

describe('the request line masking', () => {
  it.each([TOKEN, LETTERS_TOKEN])('masks the token of a homeowner route by its route (%#)', (token) => {
    expect(mask(`GET /api/public/insured/${token} (λ: insuredWizardState)\n`)).toBe(
      `GET /api/public/insured/${MASKED_CREDENTIAL} (λ: insuredWizardState)\n`,
    );
    expect(mask(`GET /api/public/insured/${token}/files/${FILE}/content (λ: insuredFileContent)`)).toBe(
      `GET /api/public/insured/${MASKED_CREDENTIAL}/files/${FILE}/content (λ: insuredFileContent)`,
    );
  });

  it('masks other credential parameters, and keeps ids, static routes and other lines', () => {
    expect(mask('GET /api/training/certificates/CERT-abc123 (λ: verifyCertificate)')).toBe(
      `GET /api/training/certificates/${MASKED_CREDENTIAL} (λ: verifyCertificate)`,
    );
    expect(mask('POST /api/public/insured/mail-events (λ: insuredMailEvents)')).toBe(
      'POST /api/public/insured/mail-events (λ: insuredMailEvents)',
    );
    expect(mask(`GET /api/jobs/${FILE} (λ: getJob)`)).toBe(`GET /api/jobs/${FILE} (λ: getJob)`);
    expect(mask('Server ready: http://localhost:3000 🚀')).toBe('Server ready: http://localhost:3000 🚀');
  });

  it('masks a path no route matches by position and shape, and drops query strings', () => {
    expect(mask(`GET /api/public/insured/${TOKEN}/nowhere (λ: x)`)).toBe(
      `GET /api/public/insured/${MASKED_CREDENTIAL}/nowhere (λ: x)`,
    );
    expect(mask(`GET /elsewhere/${LETTERS_TOKEN} (λ: x)`)).toBe(`GET /elsewhere/${MASKED_CREDENTIAL} (λ: x)`);
    expect(mask(`GET /api/public/insured/${TOKEN}?t=${TOKEN} (λ: insuredWizardState)`)).toBe(
      `GET /api/public/insured/${MASKED_CREDENTIAL}?[query] (λ: insuredWizardState)`,
    );
  });

  it('masks a line split across chunks once it is whole', () => {
    const written: string[] = [];
    const pass = maskedOfflineOutput((text) => written.push(text), mask);
    const line = `POST /api/public/insured/${TOKEN}/rooms (λ: insuredAddRoom)\n`;
    pass('offline: ready\nPOST /api/public/insu');
    pass(line.slice('POST /api/public/insu'.length, 40));
    pass(line.slice(40));
    expect(written.join('')).toBe(
      `offline: ready\nPOST /api/public/insured/${MASKED_CREDENTIAL}/rooms (λ: insuredAddRoom)\n`,
    );
    expect(written.join('')).not.toContain(TOKEN);
  });
});
