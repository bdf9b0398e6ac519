/**
 * The import and capture paths fuzzed over HTTP on the local service
 * (fast-check draws the cases and shrinks a failure to its smallest form):
 *  - every POST/PUT/PATCH route of the photo and contents-list uploads, the
 *    claim's contents-list import and the capture source integration gets
 *    malformed and oversized bodies and ids: never a 5xx;
 *  - capture imports of manifests the remote system made hostile (foreign,
 *    file and metadata-service URLs, redirects off the allow-list, declared
 *    sizes that lie, garbage bytes, stalls): every import ends, each medium
 *    imported or failed, and nothing is fetched from a foreign host;
 *  - nothing is left in the service's temporary directory (the one the local
 *    service gives its functions): every entry made there while this file
 *    ran is gone at its end, except the work directories of transcription,
 *    which other test files' audio jobs make at the same time and which no
 *    import or capture path makes.
 * Damaged PDFs are fuzzed against the reader itself in
 * tests/unit/pdf/reader-fuzz.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import sharp from 'sharp';
import { routeTable } from '../../lib/api/route-table';
import { Client, eventually, request } from '../support/api';
import { fakeCaptureSource, foreignPhotoHost } from '../support/fake-capture-source';
import { newTeamMember } from '../support/tokens';

const capture = fakeCaptureSource(process.env.TEST_FAKE_CAPTURE_SOURCE_URL as string);

/** The routes under test: writes of the import and capture paths. */
const IMPORT_PATHS = /upload-photos|import-contents-list|\/integrations\//;
const routes = routeTable.filter((r) => IMPORT_PATHS.test(r.path) && ['POST', 'PUT', 'PATCH'].includes(r.method));

/** The temporary directory the local service gives its functions (localstack/runtime/offline.js privateTempDir). */
const serviceTempDir = process.env.TEST_SERVICE_TMPDIR as string;

/** Entries of the service's temp directory, each with when it was made (birth time, else last change). */
function tempEntries(): Map<string, number> {
  const dir = serviceTempDir;
  const out = new Map<string, number>();
  for (const entry of readdirSync(dir)) {
    try {
      const stat = statSync(join(dir, entry));
      out.set(entry, stat.birthtimeMs || stat.ctimeMs);
    } catch {
      // Removed between the listing and the stat: gone, as it should be.
    }
  }
  return out;
}

/** Transcription's work directories (lib/pipelines/transcribe.ts): other files' audio jobs, never an import. */
const TRANSCRIPTION_WORK = /^transcribe-/;

let client: Client;
let startedAt: number;
let entriesBefore: Map<string, number>;
/** Real ids of this team's claim, room and photo job, so some cases get past the lookups. */
const real: Record<string, string> = {};

beforeAll(async () => {
  startedAt = Date.now();
  entriesBefore = tempEntries();
  client = await Client.signIn(newTeamMember());
  const claim = await client.post('/api/claims', { claim_number: `FUZZ-${randomUUID().slice(0, 8)}` });
  const room = await client.post(`/api/claims/${claim.body.id}/rooms`, { name: 'Kitchen' });
  const job = await client.post('/api/upload-photos', {
    room_id: room.body.id,
    files: [{ filename: 'a.jpg', size: 1000 }],
  });
  Object.assign(real, { claim: claim.body.id, room: room.body.id, job: job.body.job.id });
}, 60_000);

/** A path parameter: a real id, someone else's or nobody's, or not an id at all. */
const idLike = fc.oneof(
  fc
    .constantFrom(
      () => real.claim,
      () => real.room,
      () => real.job,
    )
    .map((f) => f()),
  fc.uuid().map(String),
  fc.constantFrom('', 'not-an-id', '..%2F..%2Fetc', '%00', 'x'.repeat(300)),
);

/** A body: JSON of any shape, the route's own fields with wrong values, or bytes that are not JSON at all. */
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      room_id: fc.oneof(fc.uuid(), fc.jsonValue()),
      files: fc.array(
        fc.record({ filename: fc.string(), size: fc.oneof(fc.integer(), fc.double()), content_type: fc.string() }),
      ),
      documents: fc.array(fc.oneof(fc.integer(), fc.string())),
      indices: fc.array(fc.integer()),
      assignment_id: fc.string(),
      target: fc.jsonValue(),
      api_token: fc.string(),
    },
    { requiredKeys: [] },
  ),
  fc.string().map((s) => ({ raw: `{${s}` })),
  fc.constant({ raw: 'x'.repeat(11 * 1024 * 1024) }),
);

it('answers malformed and oversized bodies and ids on every import and capture write with no 5xx', async () => {
  expect(routes.length).toBeGreaterThan(8);
  const fails: string[] = [];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...routes),
      fc.array(idLike, { minLength: 2, maxLength: 2 }),
      body,
      async (route, ids, sent) => {
        let n = 0;
        const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(ids[n++ % ids.length]));
        const raw =
          typeof sent === 'object' && sent !== null && 'raw' in sent ? (sent as { raw: string }).raw : undefined;
        const res = await request(route.method, path, {
          token: client.token,
          body: raw ?? sent,
          headers: raw === undefined ? {} : { 'content-type': 'application/json' },
        });
        if (res.status >= 500)
          fails.push(`${route.method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        return res.status < 500;
      },
    ),
    { numRuns: 100, interruptAfterTimeLimit: 100_000 },
  );
  expect(fails).toEqual([]);
}, 120_000);

/** A medium of a manifest the remote system made hostile. */
const hostileMedium = fc.record({
  type: fc.constantFrom('photo' as const, 'video' as const),
  garbage: fc.boolean(),
  url: fc.constantFrom(
    null,
    'FOREIGN',
    'file:///etc/passwd',
    'http://169.254.169.254/latest/meta-data/',
    'ftp://example.org/a.jpg',
    'javascript:alert(1)',
    'not a url',
  ),
  redirect: fc.boolean(),
  declared: fc.constantFrom(null, 0, 1, 10 ** 15),
  stall: fc.boolean(),
});

it('ends every capture import of a hostile manifest, each medium imported or failed, nothing fetched abroad', async () => {
  const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 90, g: 60, b: 30 } } })
    .jpeg()
    .toBuffer();
  const foreign = await foreignPhotoHost(photo);
  const foreignHits = foreign.hits;
  try {
    const team = await Client.signIn(newTeamMember());
    const org = await capture.seedOrg({ teams: [{ name: 'Crew' }] });
    const connected = await team.post('/api/integrations/capture-source/connect', { api_token: org.tokens[0] });
    expect(connected.status).toBe(200);
    await fc.assert(
      fc.asyncProperty(fc.array(hostileMedium, { minLength: 1, maxLength: 3 }), async (manifest) => {
        const assignment = await capture.seedAssignment({
          org_id: org.org_id,
          team_id: org.teams[0].id,
          reference: `CLM-${randomUUID().slice(0, 6)}`,
          title: '4 Birch Lane',
          locations: [{ name: 'Kitchen', groups: [] }],
        });
        await capture.seedMedia(
          org.org_id,
          assignment.id,
          manifest.map((m, i) => ({
            type: m.type,
            location_id: assignment.locations[0].id,
            filename: `m${i}.${m.type === 'photo' ? 'jpg' : 'mp4'}`,
            bytes: m.garbage ? Buffer.from('not a medium at all') : photo,
            ...(m.url ? { original_url: m.url === 'FOREIGN' ? `${foreign.url}/a.jpg` : m.url } : {}),
            ...(m.redirect ? { redirect_to: `${foreign.url}/redirected.jpg` } : {}),
            ...(m.declared !== null ? { declared_size_bytes: m.declared } : {}),
            ...(m.stall ? { stall_after_bytes: 10 } : {}),
          })),
        );
        const started = await team.post(`/api/integrations/connections/${connected.body.id}/import`, {
          assignment_id: assignment.id,
          target: { mode: 'new_claim' },
        });
        // A manifest the service refuses as a whole is a client-side answer, never a 5xx.
        expect(started.status).toBeLessThan(500);
        if (started.status !== 201) return;
        const batch = await eventually(
          async () => {
            const res = await team.get(`/api/integrations/imports/${started.body.id}`);
            return res.body.status !== 'importing' ? res.body : null;
          },
          90_000,
          300,
        );
        expect(batch.imported + batch.failed + batch.skipped).toBe(batch.total);
      }),
      { numRuns: 2 },
    );
    expect(foreignHits).toEqual([]);
  } finally {
    await foreign.close();
  }
}, 300_000);

it("leaves nothing in the service's temporary directory", () => {
  const left = [...tempEntries()].filter(
    ([entry, madeAt]) => !entriesBefore.has(entry) && madeAt >= startedAt - 1000 && !TRANSCRIPTION_WORK.test(entry),
  );
  expect(left.map(([entry]) => entry)).toEqual([]);
});
