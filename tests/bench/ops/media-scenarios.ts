/**
 * The media jobs of the operations benchmark, each from the upload to the
 * job's end: a 50-photo job, a 10-minute video, a 5-minute voice note and a
 * 300-page contents list. Making the media, the user, claim and room is setup.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { settings } from '../../../lib/config';
import { listStagedPhotos } from '../../../lib/photos/staged-photo-store';
import { modelItem } from '../../support/fake-gateway';
import { cardGridList } from '../../support/pdf-fixtures';
import { makeVoiceNote, makeWalkthrough, VOICE_NOTE_WORDS } from '../../support/walkthrough';
import type { Api } from '../api';
import { bytes } from '../report';
import { CARD_GRID_RECIPE_ANSWER, postedDocument } from '../shared/pdf-upload';
import { cameraJpeg, uploadJob } from '../shared/photo-upload';
import { scriptChunks, toneBursts, uploadParts, walkthroughObjects } from '../shared/video-upload';
import { type Scenario, type ScenarioContext, sleep, waitForJob } from './measure';

const PHOTOS = 50;
const PER_GROUP = 5;
const VIDEO_SECONDS = 600;
const VOICE_SECONDS = 300;
const PAGES = 300;

async function claimRoom(api: Api, tag: string): Promise<{ claimId: string; roomId: string }> {
  const claim = await api.call('POST', '/api/claims', { claim_number: `OPS-${tag}` });
  const room = await api.call('POST', `/api/claims/${claim.id}/rooms`, { name: 'Living room' });
  return { claimId: claim.id, roomId: room.id };
}

/** Polls the job's photos in the table (not counted) until all `count` are re-encoded. */
async function untilReencoded(jobId: string, count: number): Promise<{ id: string; index: number }[]> {
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    const photos = await listStagedPhotos(jobId);
    if (photos.some((p) => p.deleted)) throw new Error('a photo was removed as unreadable');
    if (photos.length === count && photos.every((p) => p.normalized)) return photos;
    if (Date.now() > deadline) throw new Error(`the ${count} photos were not re-encoded in time`);
    await sleep(1000);
  }
}

export const photoScenario: Scenario = {
  id: 'photos',
  async run(ctx: ScenarioContext) {
    const api = await ctx.signIn();
    const tag = randomUUID().slice(0, 8);
    const { roomId } = await claimRoom(api, tag);
    const photo = await cameraJpeg();
    const match = `ops-${tag}-`;
    const filenames = Array.from({ length: PHOTOS }, (_, i) => `${match}${String(i + 1).padStart(4, '0')}.jpg`);
    ctx.fakes.gateway.script(match, [{ items: [modelItem('Armchair', 0.9, { estimated_price: 250 })] }]);
    const { result: job, measurement } = await ctx.measure(async () => {
      const jobId = await uploadJob(api, roomId, photo, filenames);
      const staged = (await untilReencoded(jobId, PHOTOS)).sort((a, b) => a.index - b.index);
      const groups = Array.from({ length: PHOTOS / PER_GROUP }, (_, g) =>
        staged.slice(g * PER_GROUP, (g + 1) * PER_GROUP).map((p) => p.id),
      );
      await api.call('PUT', `/api/jobs/${jobId}/staged-photos/regroup`, { groups });
      await api.call('POST', `/api/jobs/${jobId}/process`);
      return waitForJob(jobId, (j) => j.status === 'complete');
    });
    return [
      {
        title: `${PHOTOS}-photo job`,
        unit: 'photo',
        units: PHOTOS,
        ...measurement,
        notes: [
          `${PHOTOS} JPEGs of ${bytes(photo.length)} (12 MP): manifest → presigned POST each → confirm → re-encode → regroup into ${PHOTOS / PER_GROUP} groups of ${PER_GROUP} → process → complete`,
          `${job.items_found} items`,
        ],
      },
    ];
  },
};

export const videoScenario: Scenario = {
  id: 'video',
  async run(ctx: ScenarioContext) {
    const tag = randomUUID().slice(0, 8);
    const file = join(ctx.dir, 'walkthrough.mp4');
    const objects = walkthroughObjects(VIDEO_SECONDS);
    makeWalkthrough(file, {
      seconds: VIDEO_SECONDS,
      width: 1280,
      height: 720,
      fps: 30,
      changingGrain: false,
      objects,
      bursts: toneBursts(VIDEO_SECONDS),
    });
    const video = readFileSync(file);
    const api = await ctx.signIn();
    const { roomId } = await claimRoom(api, tag);
    const filename = `ops-walkthrough-${tag}.mp4`;
    scriptChunks(ctx.fakes.gateway, filename, objects, settings().CHUNK_DURATION_SECONDS, VIDEO_SECONDS);
    const { result: job, measurement } = await ctx.measure(async () => {
      const uploadId = await uploadParts(api, roomId, video, filename);
      const { id } = await api.call('POST', `/api/uploads/${uploadId}/complete`);
      return waitForJob(id, (j) => j.status === 'complete');
    });
    return [
      {
        title: `${VIDEO_SECONDS / 60}-minute video`,
        unit: 'video minute',
        units: VIDEO_SECONDS / 60,
        ...measurement,
        notes: [
          `1280x720 30 fps walkthrough, ${bytes(video.length)}: init → part URLs → PUT each part → complete (billing off: the pipeline starts) → complete`,
          `${job.items_found} items, ${job.total_frames ?? '?'} frames`,
        ],
      },
    ];
  },
};

export const voiceScenario: Scenario = {
  id: 'voice',
  async run(ctx: ScenarioContext) {
    const tag = randomUUID().slice(0, 8);
    // Five words spread over the five minutes, silence between them.
    const note = makeVoiceNote(join(ctx.dir, 'note.m4a'), VOICE_NOTE_WORDS, {
      gapSeconds: 45,
      totalSeconds: VOICE_SECONDS,
    });
    const audio = readFileSync(note.path);
    const api = await ctx.signIn();
    const { roomId } = await claimRoom(api, tag);
    const { result: job, measurement } = await ctx.measure(async () => {
      const uploadId = await uploadParts(api, roomId, audio, `ops-note-${tag}.m4a`, 'audio');
      const { id } = await api.call('POST', `/api/uploads/${uploadId}/complete`);
      return waitForJob(id, (j) => j.status === 'complete');
    });
    return [
      {
        title: `${VOICE_SECONDS / 60}-minute voice note`,
        unit: 'recording minute',
        units: VOICE_SECONDS / 60,
        ...measurement,
        notes: [
          `M4A voice note, ${bytes(audio.length)}, ${VOICE_NOTE_WORDS.length} words: init → part URLs → PUT each part → complete → complete`,
          `${job.items_found} items`,
        ],
      },
    ];
  },
};

export const pdfScenario: Scenario = {
  id: 'pdf',
  async run(ctx: ScenarioContext) {
    const tag = randomUUID().slice(0, 8);
    const fixture = await cardGridList({
      pages: PAGES,
      photosPerPage: 6,
      photoPx: [1024, 768],
      cameraPhotos: true,
      header: `Acme Restoration ${tag} - Contents inventory - Claim 88-12345 - Insured: Jane Doe`,
      footerLines: [`Acme Restoration ${tag} - 12 Main Street`, `Questions ${tag}: call the office`],
    });
    const pdf = Buffer.from(fixture.bytes);
    const api = await ctx.signIn();
    const { claimId } = await claimRoom(api, tag);
    const filename = `ops-${tag}.pdf`;
    await ctx.fakes.gateway.script(`Sample pages of the contents list "${filename}"`, [CARD_GRID_RECIPE_ANSWER]);
    const { result: job, measurement } = await ctx.measure(async () => {
      const jobId = await postedDocument(api, claimId, filename, pdf);
      await api.call('POST', `/api/upload-photos/${jobId}/confirm`, { documents: [0] });
      return waitForJob(jobId, (j) => j.status === 'awaiting_grouping');
    });
    // The photo job the list left awaiting grouping, processed as the read grouped it: its photos' labels name the list.
    const staged = job.pdf_documents?.[0]?.photos ?? 0;
    ctx.fakes.gateway.script(`${filename}, page`, [{ items: [modelItem('Armchair', 0.9, { estimated_price: 250 })] }]);
    const processed = await ctx.measure(async () => {
      await api.call('POST', `/api/jobs/${job.id}/process`);
      return waitForJob(job.id, (j) => j.status === 'complete');
    });
    return [
      {
        title: `${PAGES}-page contents list`,
        unit: 'page',
        units: PAGES,
        ...measurement,
        notes: [
          `card-grid list, ${fixture.expected.photos.length} photos, ${bytes(pdf.length)}: room → manifest → presigned POST → confirm → read → awaiting_grouping (the photo job that follows is measured next)`,
          `${staged} photos staged`,
        ],
      },
      {
        title: `photo job after the ${PAGES}-page list`,
        unit: 'photo',
        units: staged,
        ...processed.measurement,
        notes: [
          `the list's ${staged} photos in the groups the read made: process → one AI call per group → complete`,
          `${processed.result.items_found} items`,
        ],
      },
    ];
  },
};
