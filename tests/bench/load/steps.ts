/**
 * What an adjuster does, step by step, over the API as the SPA drives it
 * (uploads through the tests/support helpers). Each step throws with the
 * answer when the service answers what the SPA would not expect.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '../../support/api';
import { modelItem } from '../../support/fake-gateway';
import { CARD_GRID_RECIPE } from '../../support/pdf-fixtures';
import { homeowner, photo, postForm } from '../../support/insured';
import { texturedJpeg } from '../../support/inventory';
import { chunkedUpload, photoJob, postDocument } from '../../support/uploads';
import type { Fakes } from './fakes';

/** The SPA polls a job, an export or a send about once a second. */
const POLL_MS = 1000;
const WAIT_LIMIT_MS = 10 * 60_000;
export const TERMINAL_JOB = ['complete', 'error'];
const PROCESSING_JOB = ['pending', 'extracting', 'transcribing', 'segmenting', 'analyzing', 'synthesizing'];
/** Statuses the adjuster's Process click starts from. */
const STARTABLE_JOB = ['awaiting_grouping', 'awaiting_confirmation'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function expectStatus(res: { status: number; body: unknown }, what: string, ...statuses: number[]) {
  if (!statuses.includes(res.status))
    throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body as any;
}

/** Polls `read` every POLL_MS until `done` holds; the last answer. */
async function pollUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still waiting after ${WAIT_LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

export const getJob = async (client: Client, jobId: string) =>
  expectStatus(await client.get(`/api/jobs/${jobId}`), `GET job ${jobId}`, 200);

export const jobEnded = (client: Client, jobId: string) =>
  pollUntil(
    `job ${jobId}`,
    () => getJob(client, jobId),
    (job) => TERMINAL_JOB.includes(job.status),
  );

/**
 * The Process click once the job can start (a recording's length measured, photos saved): a 409 while the
 * job is still being prepared is answered again a moment later, as the SPA's button stays disabled meanwhile.
 */
export async function processJob(client: Client, jobId: string): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const job = await getJob(client, jobId);
    if (TERMINAL_JOB.includes(job.status) || PROCESSING_JOB.includes(job.status)) return;
    // A recording is startable once its length is measured; photos once saved (a 409 until then).
    if (STARTABLE_JOB.includes(job.status) && (job.source_type === 'photo' || typeof job.duration === 'number')) {
      const res = await client.post(`/api/jobs/${jobId}/process`);
      if (res.status === 200) return;
      expectStatus(res, `process ${jobId}`, 200, 409);
    }
    if (Date.now() > deadline) throw new Error(`process ${jobId}: not started after ${WAIT_LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** A photo job of `count` photos, each showing one named item to the fake model; its id once processed. */
export async function photoStep(client: Client, fakes: Fakes, roomId: string, tag: string, count = 3) {
  const filenames = Array.from({ length: count }, (_, i) => `load-${tag}-${i}.jpg`);
  for (const [i, filename] of filenames.entries())
    fakes.gateway.script(filename, [{ items: [modelItem(`Item ${tag} ${i}`)] }]);
  const photos = await Promise.all(filenames.map((_, i) => texturedJpeg(i + 2)));
  const { jobId } = await photoJob(client, roomId, photos, filenames);
  await processJob(client, jobId);
  return jobId;
}

/** A recording (video or voice note) uploaded in parts, processed once its length is measured. */
export async function recordingStep(
  client: Client,
  roomId: string,
  kind: 'video' | 'audio',
  bytes: Buffer,
  filename: string,
) {
  const { job } = await chunkedUpload(client, { id: roomId }, bytes, { kind, filename });
  await processJob(client, job.id);
  return job.id as string;
}

/** A contents list imported into the claim; the ids of the jobs it made and of its read job. */
export async function importStep(client: Client, fakes: Fakes, claimId: string, list: Uint8Array, tag: string) {
  const filename = `list-${tag}.pdf`;
  fakes.gateway.script(`Sample pages of the contents list "${filename}"`, [{ items: [], content: CARD_GRID_RECIPE }]);
  fakes.gateway.script(`${filename}, page`, [{ items: [modelItem(`Listed ${tag}`)] }]);
  const started = expectStatus(
    await client.post(`/api/claims/${claimId}/import-contents-list`, { files: [{ filename, size: list.length }] }),
    'import-contents-list',
    201,
  );
  const posted = await postDocument(started.uploads[0], Buffer.from(list));
  if (posted.status !== 204) throw new Error(`contents list POST: ${posted.status} ${posted.text.slice(0, 200)}`);
  expectStatus(await client.post(`/api/integrations/imports/${started.id}/confirm`, {}), 'import confirm', 200);
  const batch = await pollUntil(
    `import ${started.id}`,
    async () => expectStatus(await client.get(`/api/integrations/imports/${started.id}`), 'import status', 200),
    (b) => ['complete', 'partial', 'failed'].includes(b.status),
  );
  for (const jobId of batch.job_ids as string[]) await processJob(client, jobId);
  return { batch, jobIds: batch.job_ids as string[], readJobId: batch.read_job_id as string };
}

/** Review: rename one item, change another's quantity, merge two and undo the merge. */
export async function reviewStep(client: Client, jobId: string) {
  const items = expectStatus(await client.get(`/api/inventory/${jobId}`), 'inventory', 200) as any[];
  if (items.length >= 1)
    expectStatus(
      await client.put(`/api/inventory/item/${items[0].id}`, { name: `${items[0].name} (checked)` }),
      'rename',
      200,
    );
  if (items.length >= 2) {
    expectStatus(await client.put(`/api/inventory/item/${items[1].id}`, { quantity: 2 }), 'quantity', 200);
    const merged = expectStatus(
      await client.post('/api/inventory/items/merge', { item_ids: [items[0].id, items[1].id] }),
      'merge',
      200,
    );
    const feed = expectStatus(await client.get('/api/activity?limit=100'), 'activity', 200);
    const entry = (feed.items as any[]).find((e) => e.action_type === 'merge_items' && e.entity_id === merged.id);
    if (!entry) throw new Error(`no merge_items entry for ${merged.id} in the activity feed`);
    expectStatus(await client.post(`/api/activity/${entry.id}/restore`), 'undo merge', 200);
  }
}

/** An export (Excel or the PDF report) requested, polled to its end and downloaded; its final status. */
export async function exportStep(client: Client, path: string): Promise<{ id: string; status: string }> {
  const requested = expectStatus(await client.get(path), `export ${path}`, 202);
  const ended = await pollUntil(
    `export ${requested.export_id}`,
    async () => expectStatus(await client.get(requested.poll_url), 'export status', 200),
    (e) => e.status === 'ready' || e.status === 'failed',
  );
  if (ended.status === 'ready') {
    const download = await fetch(ended.download_url);
    await download.arrayBuffer();
    if (download.status !== 200) throw new Error(`export download: ${download.status}`);
  }
  return { id: requested.export_id, status: ended.status };
}

export interface SendOutcome {
  platform: 'estimation' | 'claims-platform';
  claimId: string;
  status: number;
  /** The send's end: 'sent', 'complete', 'failed', or the refusal. */
  state: string;
  credits: number;
}

/** Both sends of the claim: the estimation platform's (answered at once), the claims platform's (followed to its end). */
export async function sendSteps(client: Client, claimId: string): Promise<SendOutcome[]> {
  const outcomes: SendOutcome[] = [];
  const estimation = await client.post(`/api/claims/${claimId}/submit-to-estimation-platform`, {});
  expectStatus(estimation, 'estimation send', 200, 502, 503);
  outcomes.push({
    platform: 'estimation',
    claimId,
    status: estimation.status,
    state: estimation.status === 200 ? 'sent' : 'failed',
    credits: estimation.status === 200 ? (estimation.body.credits_charged ?? 0) : 0,
  });
  const platform = await client.post(`/api/claims/${claimId}/submit-to-claims-platform`, {});
  expectStatus(platform, 'claims platform send', 200, 502);
  if (platform.status !== 200) {
    outcomes.push({ platform: 'claims-platform', claimId, status: platform.status, state: 'failed', credits: 0 });
    return outcomes;
  }
  const history = await pollUntil(
    `claims platform send ${platform.body.id}`,
    async () => expectStatus(await client.get(`/api/claims/${claimId}/submissions`), 'submissions', 200),
    (h) => ['complete', 'failed'].includes(h.submissions.find((s: any) => s.id === platform.body.id)?.status),
  );
  const submission = history.submissions.find((s: any) => s.id === platform.body.id);
  outcomes.push({
    platform: 'claims-platform',
    claimId,
    status: 200,
    state: submission.status,
    credits: platform.body.credits_charged ?? 0,
  });
  return outcomes;
}

/** A homeowner's wizard session on a link to the claim: identify, a room, a photo, a typed item, submit. */
export async function homeownerStep(adjuster: Client, claimId: string, onToken: (token: string) => void) {
  const invited = expectStatus(
    await adjuster.post(`/api/claims/${claimId}/insured-links`, {
      email: `home-${randomUUID().slice(0, 6)}@example.test`,
    }),
    'insured link',
    201,
  );
  const token = (invited.url as string).split('/').pop() as string;
  onToken(token);
  const h = homeowner(token);
  expectStatus(await h.get(), 'homeowner open', 200);
  expectStatus(await h.post('/identify', { name: 'Pat Home' }), 'identify', 200);
  const room = expectStatus(await h.post('/rooms', { name: 'Porch' }), 'homeowner room', 200, 201);
  const bytes = await photo(3);
  const filesPath = `/rooms/${room.id}/files`;
  const issued = expectStatus(
    await h.post(filesPath, { filename: 'photo.png', content_type: 'image/png', size: bytes.length }),
    'homeowner file',
    201,
  );
  const posted = await postForm(issued.upload, bytes);
  if (posted !== 204) throw new Error(`homeowner photo POST: ${posted}`);
  expectStatus(await h.post(filesPath, { file_id: issued.file.id }), 'homeowner file confirm', 201);
  expectStatus(await h.post(`/rooms/${room.id}/items`, { name: 'Bicycle', brand: 'Trek' }), 'homeowner item', 201);
  return expectStatus(await h.post('/submit'), 'homeowner submit', 200);
}
