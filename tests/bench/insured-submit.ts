/**
 * Benchmark (j): the homeowner's submit at the link's ceilings. One link is
 * filled to INSURED_LINK_MAX_FILES ready photos and INSURED_LINK_MAX_ITEMS
 * typed rows (the service's own settings): ROOMS draft rooms, each with its
 * share of the room photos (notes shared by a few photos, some without one)
 * and of the typed rows, a share of the rows with a photo (the file ceiling
 * counts those too). Every photo is a real small JPEG in the bucket under the
 * claim's homeowner folder, its row as a confirmed upload leaves it. Then one
 * POST /api/public/insured/{token}/submit is timed over HTTP. A round this
 * large is queued for the stage workers as its run on the engine
 * (lib/insured/submit-service.ts): the answer says processing, and the round
 * is made in the background.
 *
 *   pass: the submit answers 200 within 29 s (API Gateway's integration
 *   limit), counting every room photo and typed row, and the worker has made
 *   the round (every row taken, its jobs written) within 300 s (the bound the
 *   insured worker's timeout set before rounds ran on the engine; a stage
 *   worker may run 900 s)
 *
 * Also printed, not bound: how long after the round was made the photo
 * worker has re-encoded every staged photo (the queue drained).
 *
 * Seeding (objects through the blob helpers, rows through the link's own
 * store functions, rooms over the public route) is printed, not measured.
 * Run through `npm run bench -- insured-submit` (tests/bench/run.js).
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { texturedJpeg } from './shared/textured-jpeg';
import { putJpeg } from '../../lib/blob/objects';
import { settings } from '../../lib/config';
import { boundBefore, linkCeilings } from '../../lib/insured/draft-rules';
import { putDraftFile, putDraftItem } from '../../lib/insured/draft-store';
import type { DraftFile, DraftItem } from '../../lib/insured/draft-record-rules';
import { draftFileFolder } from '../../lib/insured/file-service';
import { getInsuredLink } from '../../lib/insured/store';
import type { InsuredLink } from '../../lib/insured/link-record-rules';
import { listStagedPhotos } from '../../lib/photos/staged-photo-store';
import { sanitizeFilename } from '../../lib/uploads/rules';
import { newTeamMember, signLoginToken } from '../support/tokens';
import { Api } from './api';
import { bytes, emitResult, printTable, requiredEnv, runBenchmark, seconds } from './report';

const NAME = 'insured-submit';
const ROOMS = 10;
/** One typed row in ROW_PHOTO_EVERY has a photo; the rest of the file ceiling are room photos. */
const ROW_PHOTO_EVERY = 10;
/** Room photos share a note in runs of this many; one run in NOTELESS_EVERY has no note. */
const PHOTOS_PER_NOTE = 3;
const NOTELESS_EVERY = 5;
const DISTINCT_JPEGS = 20;
const OBJECT_PUTS_IN_FLIGHT = 16;
const ROW_WRITES_IN_FLIGHT = 8;
const ROW_WRITE_ATTEMPTS = 20;
const BOUND_SECONDS = 29;
/** A round is made within this, well inside one stage worker's invocation (lib/background/functions.ts). */
const ROUND_BOUND_SECONDS = 300;
const DRAIN_TIMEOUT_MS = 20 * 60_000;

const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

/** A 480x360 photo with texture (a phone photo's JPEG, scaled down), one of a few variants. */
const smallJpeg = (seed: number) => texturedJpeg(480, 360, seed);

/** A public call of the link (no sign-in: the token is in the path). */
async function publicCall(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

interface Seeded {
  adjuster: Api;
  link: InsuredLink;
  token: string;
  claimId: string;
  roomPhotos: number;
  rowPhotos: number;
  items: number;
  objectBytes: number;
}

/** The photo row a confirmed upload leaves (status ready, its real size), counted against the link's ceilings. */
function readyPhoto(
  link: InsuredLink,
  n: number,
  owner: { room_id: string; item_id: null; note: string | null } | { room_id: null; item_id: string; note: null },
  size: number,
  at: number,
): DraftFile {
  const id = randomUUID();
  const filename = `IMG_${String(n).padStart(4, '0')}.jpg`;
  const created = new Date(at).toISOString();
  return {
    id,
    link_id: link.id,
    kind: 'photo',
    ...owner,
    filename,
    content_type: 'image/jpeg',
    size_bytes: size,
    key: `${draftFileFolder(link, id)}${sanitizeFilename(filename)}`,
    status: 'ready',
    s3_upload_id: null,
    chunk_size: null,
    part_count: null,
    round: null,
    job_id: null,
    thumb_key: null,
    created_at: created,
    updated_at: created,
  };
}

async function seed(base: string, secret: string): Promise<Seeded> {
  const config = settings();
  const ceilings = linkCeilings(config);
  const maxFiles = config.INSURED_LINK_MAX_FILES;
  const maxItems = config.INSURED_LINK_MAX_ITEMS;
  if (maxFiles <= 0 || maxItems <= 0) throw new Error('the link ceilings are off in the bench service');
  const rowPhotos = Math.floor(maxItems / ROW_PHOTO_EVERY);
  const roomPhotos = maxFiles - rowPhotos;
  if (roomPhotos < ROOMS) throw new Error(`INSURED_LINK_MAX_FILES ${maxFiles} leaves too few room photos`);

  let t = performance.now();
  const adjuster = new Api(base, await signLoginToken(newTeamMember(), { secret }));
  await adjuster.call('GET', '/api/auth/me');
  const claim = await adjuster.call('POST', '/api/claims', { claim_number: `BENCH-${randomUUID().slice(0, 8)}` });
  const invited = await adjuster.call('POST', `/api/claims/${claim.id}/insured-links`, {
    email: `bench-${randomUUID().slice(0, 8)}@example.test`,
  });
  const token = String(invited.url).split('/').pop() as string;
  const link = await getInsuredLink(invited.link.id);
  if (!link) throw new Error('the invited link is not in the table');
  const roomIds: string[] = [];
  for (let r = 0; r < ROOMS; r++) {
    const room = await publicCall(base, 'POST', `/api/public/insured/${token}/rooms`, { name: `Room ${r + 1}` });
    if (room.status !== 201 && room.status !== 200) throw new Error(`POST rooms: ${room.status} ${room.text}`);
    roomIds.push(room.body.id);
  }
  process.stdout.write(`  claim, link and ${ROOMS} rooms in ${seconds((performance.now() - t) / 1000)}\n`);

  const jpegs = await Promise.all(Array.from({ length: DISTINCT_JPEGS }, (_, i) => smallJpeg(i + 1)));
  let at = Date.now();
  const files: DraftFile[] = [];
  for (let p = 0; p < roomPhotos; p++) {
    const run = Math.floor(p / PHOTOS_PER_NOTE);
    const note = run % NOTELESS_EVERY === 0 ? null : `Thing ${run + 1}, bought about ${2010 + (run % 14)}`;
    const jpeg = jpegs[p % DISTINCT_JPEGS];
    files.push(readyPhoto(link, p + 1, { room_id: roomIds[p % ROOMS], item_id: null, note }, jpeg.length, at++));
  }
  const items: DraftItem[] = Array.from({ length: maxItems }, (_, i) => {
    const created = new Date(at++).toISOString();
    return {
      id: randomUUID(),
      link_id: link.id,
      room_id: roomIds[i % ROOMS],
      name: `Typed thing ${i + 1}`,
      quantity: 1 + (i % 3),
      brand: i % 2 ? 'Acme' : null,
      model: i % 4 ? null : `M-${i}`,
      age: i % 3 ? '5 years' : null,
      estimated_price: 10 + (i % 500),
      notes: i % 5 ? null : 'Bought new',
      round: null,
      job_id: null,
      created_at: created,
      updated_at: created,
    };
  });
  for (let k = 0; k < rowPhotos; k++) {
    const jpeg = jpegs[k % DISTINCT_JPEGS];
    const item = items[k * ROW_PHOTO_EVERY];
    files.push(
      readyPhoto(link, roomPhotos + k + 1, { room_id: null, item_id: item.id, note: null }, jpeg.length, at++),
    );
  }

  // The bytes, as the browser's presigned POSTs leave them.
  t = performance.now();
  const limit = pLimit(OBJECT_PUTS_IN_FLIGHT);
  const jpegOf = new Map(files.map((f, i) => [f.id, jpegs[(i < roomPhotos ? i : i - roomPhotos) % DISTINCT_JPEGS]]));
  await Promise.all(files.map((f) => limit(() => putJpeg(f.key, jpegOf.get(f.id) as Buffer))));
  const objectBytes = files.reduce((n, f) => n + f.size_bytes, 0);
  process.stdout.write(
    `  ${files.length} JPEG objects (${bytes(objectBytes)}) in ${seconds((performance.now() - t) / 1000)}\n`,
  );

  // The rows through the routes' own writes: each raises the link's counters in its own transaction. Racing
  // writes on the link row can lose a transaction (a false answer): that row is written again; the counts are
  // checked at the end, so a ceiling hit cannot pass unnoticed.
  t = performance.now();
  const rowLimit = pLimit(ROW_WRITES_IN_FLIGHT);
  const untilWritten = async (what: string, write: () => Promise<boolean>) => {
    for (let attempt = 1; !(await write()); attempt++)
      if (attempt >= ROW_WRITE_ATTEMPTS) throw new Error(`${what} did not fit the link's ceilings`);
  };
  await Promise.all(
    items.map((item) =>
      rowLimit(() =>
        untilWritten(`typed row ${item.name}`, () =>
          putDraftItem(item, { bytesBefore: null, itemsBefore: boundBefore(ceilings.items, 1) }),
        ),
      ),
    ),
  );
  await Promise.all(
    files.map((file) =>
      rowLimit(() =>
        untilWritten(`photo ${file.filename}`, () =>
          putDraftFile(file, {
            bytesBefore: boundBefore(ceilings.totalBytes, file.size_bytes),
            filesBefore: boundBefore(ceilings.files, 1),
          }),
        ),
      ),
    ),
  );
  process.stdout.write(
    `  ${items.length} typed rows and ${files.length} photo rows in ${seconds((performance.now() - t) / 1000)}\n`,
  );
  const filled = await getInsuredLink(link.id);
  if (filled?.files_count !== maxFiles || filled?.items_count !== maxItems)
    throw new Error(`the link holds ${filled?.files_count} files and ${filled?.items_count} rows`);
  return { adjuster, link, token, claimId: claim.id, roomPhotos, rowPhotos, items: items.length, objectBytes };
}

/** The claim's photo jobs (the submit's room photos and typed rows), as the adjuster lists them. */
async function photoJobsOfClaim(adjuster: Api, claimId: string): Promise<string[]> {
  const rooms = await adjuster.call<{ id: string }[]>('GET', `/api/claims/${claimId}/rooms`);
  const jobs = await Promise.all(
    rooms.map((room) => adjuster.call<{ id: string; source_type: string }[]>('GET', `/api/rooms/${room.id}/jobs`)),
  );
  return jobs
    .flat()
    .filter((job) => job.source_type === 'photo')
    .map((job) => job.id);
}

/** Seconds until the link records `round` made (its submitted_round), polled from the table; null past the timeout. */
async function roundMadeSeconds(linkId: string, round: number, since: number): Promise<number | null> {
  const deadline = since + DRAIN_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (((await getInsuredLink(linkId))?.submitted_round ?? 0) >= round) return (performance.now() - since) / 1000;
    await sleep(500);
  }
  return null;
}

/** Seconds until every staged photo of the link's jobs is re-encoded (or refused), polled from the table. */
async function drainSeconds(jobIds: string[], expected: number, since: number): Promise<number | null> {
  const deadline = since + DRAIN_TIMEOUT_MS;
  let lastReport = performance.now();
  for (;;) {
    const rows = (await Promise.all(jobIds.map((id) => listStagedPhotos(id)))).flat();
    const done = rows.filter((p) => p.normalized || p.unreadable_reason).length;
    if (rows.length >= expected && done === rows.length) return (performance.now() - since) / 1000;
    if (performance.now() > deadline) return null;
    if (performance.now() - lastReport > 30_000) {
      process.stdout.write(`  re-encoded ${done}/${rows.length}…\n`);
      lastReport = performance.now();
    }
    await sleep(1000);
  }
}

async function main(): Promise<void> {
  const base = requiredEnv('BENCH_SERVICE_URL');
  const secret = requiredEnv('CLAIMS_PLATFORM_JWT_SECRET');
  process.stdout.write('Seeding (not measured)\n');
  const seeded = await seed(base, secret);
  const submitPath = `/api/public/insured/${seeded.token}/submit`;

  // Measured: one submit, over HTTP.
  const t0 = performance.now();
  const submitted = await publicCall(base, 'POST', submitPath);
  const submitS = (performance.now() - t0) / 1000;
  const answer = submitted.body;
  const title = `(j) homeowner submit at the ceilings: ${seeded.roomPhotos + seeded.rowPhotos} photos, ${seeded.items} typed rows, ${ROOMS} rooms`;
  const seededRows: [string, string][] = [
    ['room photos / typed rows / rows with a photo', `${seeded.roomPhotos} / ${seeded.items} / ${seeded.rowPhotos}`],
    ['photo bytes in the bucket', bytes(seeded.objectBytes)],
  ];
  // The local service stops a handler at the function's timeout (29 s, as API Gateway would) and answers its error.
  if (answer?.errorType === 'LambdaTimeoutError') {
    printTable(title, [
      ...seededRows,
      ['POST submit', `no answer: the function timed out after ${seconds(submitS)} (bound ${BOUND_SECONDS} s)`],
      ['result', 'FAIL'],
    ]);
    emitResult({
      name: NAME,
      pass: false,
      summary: { submit: `timed out at ${seconds(submitS)}`, bound: `${BOUND_SECONDS} s`, result: 'FAIL' },
    });
    return;
  }
  if (submitted.status !== 200 || typeof answer?.round !== 'number')
    throw new Error(`POST submit after ${seconds(submitS)}: ${submitted.status} ${submitted.text.slice(0, 300)}`);
  const complete = answer.nothing_new === false && answer.photos === seeded.roomPhotos && answer.items === seeded.items;
  process.stdout.write(`  submit answered in ${seconds(submitS)}: ${JSON.stringify(answer)}\n`);

  // The round, made by the worker after the answer; then, not bound, the re-encode of every staged photo.
  const made = await roundMadeSeconds(seeded.link.id, answer.round, t0);
  const link = await getInsuredLink(seeded.link.id);
  const jobIds = await photoJobsOfClaim(seeded.adjuster, seeded.claimId);
  const drain =
    made === null ? null : await drainSeconds(jobIds, seeded.roomPhotos + seeded.rowPhotos, performance.now());

  const madeInTime = made !== null && made <= ROUND_BOUND_SECONDS;
  const pass = complete && submitS <= BOUND_SECONDS && madeInTime;
  printTable(title, [
    ...seededRows,
    ['POST submit answered', `${seconds(submitS)} (bound ${BOUND_SECONDS} s, API Gateway's limit)`],
    [
      'answer',
      `photo_jobs ${answer.photo_jobs}, photos ${answer.photos}, items ${answer.items}${complete ? '' : ' (NOT everything seeded)'}`,
    ],
    ['answered as', answer.processing ? 'processing (queued for a stage worker)' : 'made in the request'],
    [
      'round made (every row taken, its jobs written), from the submit',
      made === null
        ? `not within ${DRAIN_TIMEOUT_MS / 60_000} min`
        : `${seconds(made)} (bound ${ROUND_BOUND_SECONDS} s, the worker's timeout); link submits: ${link?.submitted_round ?? 0}`,
    ],
    [
      're-encode queue drained after the round was made (not bound)',
      drain === null ? `not within ${DRAIN_TIMEOUT_MS / 60_000} min` : seconds(drain),
    ],
    ['result', pass ? 'PASS' : 'FAIL'],
  ]);
  emitResult({
    name: NAME,
    pass,
    summary: {
      submit: seconds(submitS),
      bound: `${BOUND_SECONDS} s`,
      'round made': made === null ? 'timed out' : seconds(made),
      'round bound': `${ROUND_BOUND_SECONDS} s`,
      photos: String(seeded.roomPhotos + seeded.rowPhotos),
      items: String(seeded.items),
      'queue drained': drain === null ? 'timed out' : seconds(drain),
      result: pass ? 'PASS' : 'FAIL',
    },
  });
}

runBenchmark(NAME, main);
