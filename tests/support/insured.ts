/**
 * The homeowner link over HTTP as a homeowner's browser drives it (no
 * sign-in; the token in the path), shared by tests/e2e/insured-*.test.ts.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import pLimit from 'p-limit';
import { putDraftItem } from '../../lib/insured/draft-store';
import type { DraftItem } from '../../lib/insured/draft-record-rules';
import { getInsuredLink } from '../../lib/insured/store';
import type { SubmitRoundSummary } from '../../lib/insured/link-record-rules';
import { insuredRoundPipeline } from '../../lib/insured/submit-round-run-service';
import { insuredRoundId, startSubmitRound } from '../../lib/insured/submit-round-store';
import { insuredKeys } from '../../lib/insured/keys';
import { requestStageFields } from '../../lib/orchestrator/request-stage';
import { queuedStage } from '../../lib/orchestrator/transitions';
import { Client, request } from './api';
import { getRow } from './aws';
import { fakeBilling } from './fake-billing';
import { newTeamMember } from './tokens';
import { newRoom } from './uploads';

export const MIB = 1024 * 1024;

/** A new team (100 credits) with a claim, and a link to it for a new address. */
export async function invitedLink() {
  const member = newTeamMember();
  const adjuster = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 100);
  const room = await newRoom(adjuster, 'Hall');
  const invited = await adjuster.post(`/api/claims/${room.claim_id}/insured-links`, {
    email: `home-${randomUUID().slice(0, 6)}@example.test`,
  });
  expect(invited.status).toBe(201);
  const token = (invited.body.url as string).split('/').pop() as string;
  return {
    adjuster,
    teamId: member.current_team_id,
    claimId: room.claim_id,
    linkId: invited.body.link.id as string,
    token,
  };
}

/** A homeowner's browser: only the token, never a sign-in. */
export function homeowner(token: string) {
  const base = `/api/public/insured/${token}`;
  return {
    get: (path = '') => request('GET', `${base}${path}`),
    post: (path: string, body?: unknown) => request('POST', `${base}${path}`, { body: body ?? {} }),
    patch: (path: string, body: unknown) => request('PATCH', `${base}${path}`, { body }),
    delete: (path: string) => request('DELETE', `${base}${path}`),
  };
}
export type Homeowner = ReturnType<typeof homeowner>;

/** The browser's POST of a presigned form: every signed field first, then the file. */
export async function postForm(upload: { url: string; fields: Record<string, string> }, bytes: Buffer) {
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)]), 'photo');
  return (await fetch(upload.url, { method: 'POST', body: form })).status;
}

/** A small solid-colour PNG. */
export const photo = (seed: number, width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: seed * 40, g: 90, b: 160 } } })
    .png()
    .toBuffer();

/** Issue, POST the bytes, confirm: the photo is ready. */
export async function addPhoto(h: Homeowner, path: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const issued = await h.post(path, { filename: 'photo.png', content_type: 'image/png', size: bytes.length, ...extra });
  expect(issued.status).toBe(201);
  expect(await postForm(issued.body.upload, bytes)).toBe(204);
  const confirmed = await h.post(path, { file_id: issued.body.file.id });
  expect(confirmed.status).toBe(201);
  expect(confirmed.body.file.status).toBe('ready');
  return confirmed.body.file;
}

export async function addVideo(h: Homeowner, roomId: string, bytes: Buffer) {
  const init = await h.post('/uploads/init', {
    kind: 'video',
    filename: 'walkthrough.mp4',
    room_id: roomId,
    total_size: bytes.length,
  });
  expect(init.status).toBe(201);
  const { upload_id: id, chunk_size: chunk, part_count: count } = init.body;
  const urls = await h.post(`/uploads/${id}/part-urls`, { parts: [...Array(count).keys()] });
  expect(urls.status).toBe(200);
  for (const { index, url, size } of urls.body.urls)
    expect(
      (await fetch(url, { method: 'PUT', body: bytes.subarray(index * chunk, index * chunk + size) })).status,
    ).toBe(200);
  const done = await h.post(`/uploads/${id}/complete`);
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({ status: 'completed', file: { kind: 'video', status: 'ready' } });
  return done.body.file;
}

/**
 * Typed rows written straight through the link's own store (each raises the link's counters, as the route's write
 * does, but past the test stack's tiny ceilings), for drafts larger than the ceilings and the per-token write rate
 * let a test type over HTTP. A write that lost a race on the link row answers false and is tried again.
 */
export async function seedTypedRows(linkId: string, roomId: string, count: number): Promise<void> {
  const limit = pLimit(4);
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      limit(async () => {
        const at = new Date().toISOString();
        const item: DraftItem = {
          id: randomUUID(),
          link_id: linkId,
          room_id: roomId,
          name: `Box ${i + 1}`,
          quantity: 1,
          brand: null,
          model: null,
          age: null,
          estimated_price: null,
          notes: null,
          round: null,
          job_id: null,
          created_at: at,
          updated_at: at,
        };
        for (let attempt = 0; attempt < 20; attempt++) {
          if (await putDraftItem(item, { bytesBefore: null, itemsBefore: null })) return;
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * (attempt + 1)));
        }
        throw new Error(`typed row ${item.name} was not written`);
      }),
    ),
  );
}

/** A homeowner submit round's own row: its run on the engine (lib/insured/submit-round-store.ts). */
export const roundRow = (linkId: string, round: number) => {
  const key = insuredKeys.insuredRound(insuredRoundId(linkId, round));
  return getRow(key.pk, key.sk);
};

/** A round's row key, to write fields of a state time would leave it in. */
export const roundKey = (linkId: string, round: number) => insuredKeys.insuredRound(insuredRoundId(linkId, round));

/**
 * Starts round `previous + 1` of the link as a submit that died would leave it, for the stack's watchdog to find:
 * 'request died' (its stage taken under the request's lease, run out a minute ago, no heartbeat for two), or
 * 'message lost' (its stage queued twenty minutes ago, past the watchdog's quiet limit, its message never sent).
 */
export async function startAbandonedRound(
  linkId: string,
  previous: number,
  summary: SubmitRoundSummary,
  how: 'request died' | 'message lost',
) {
  const link = await getInsuredLink(linkId);
  if (!link) throw new Error(`no link ${linkId}`);
  const at = new Date(Date.now() - (how === 'request died' ? 120_000 : 20 * 60_000));
  const taken = requestStageFields(insuredRoundPipeline, 'a-request-that-died', 60_000, at);
  const run = how === 'request died' ? taken : { ...taken, ...queuedStage('make'), stage_timings: {} };
  return startSubmitRound(link, previous, summary, run, at);
}
