/**
 * GET /api/dashboard/metrics over real HTTP: a team's items cataloged,
 * processing seconds and seconds per item over finished jobs with items
 * (photo jobs run through the real pipeline against the fake AI gateway);
 * a job that found nothing, a running job and archived items are left out;
 * another team's jobs never count; a team with nothing answers a null rate.
 */
import { randomUUID } from 'node:crypto';
import { Client, eventually } from '../support/api';
import { seedItem, seedJob, setFields } from '../support/aws';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob, smallPng, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

const tenths = (seconds: number) => Math.round(seconds * 10) / 10;

/** A photo job processed to completion, the model finding `names` on its one photo; the finished job. */
async function processedJob(client: Client, roomId: string, names: string[], seed: number) {
  const filename = `dash-${randomUUID().slice(0, 8)}.png`;
  await gateway.script(filename, [{ items: names.map((n) => modelItem(n)) }]);
  const { jobId } = await photoJob(client, roomId, [await smallPng(seed)], [filename]);
  expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
  return eventually(
    async () => {
      const job = (await client.get(`/api/jobs/${jobId}`)).body;
      return job.status === 'complete' ? job : null;
    },
    90_000,
    300,
  );
}

const runSeconds = (job: { started_at: string; finished_at: string }) =>
  (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000;

describe('GET /api/dashboard/metrics', () => {
  it('answers zeros and a null rate for a team with nothing', async () => {
    const newcomer = await Client.signIn(newTeamMember());
    const res = await newcomer.get('/api/dashboard/metrics');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items_cataloged: 0, processing_seconds: 0, seconds_per_item: null });
  });

  describe('a team with finished and running jobs', () => {
    let alice: Client;
    let room: TestRoom;
    let withItems: any;

    beforeAll(async () => {
      alice = await Client.signIn(newTeamMember());
      room = await newRoom(alice, 'Garage');
      withItems = await processedJob(alice, room.id, ['Workbench', 'Toolbox', 'Bicycle'], 3);
    });

    it('sums the live items and run time of a completed job', async () => {
      const res = await alice.get('/api/dashboard/metrics');
      expect(res.status).toBe(200);
      const seconds = runSeconds(withItems);
      expect(seconds).toBeGreaterThan(0);
      expect(res.body).toEqual({
        items_cataloged: 3,
        processing_seconds: tenths(seconds),
        seconds_per_item: tenths(seconds / 3),
      });
      // The same run time the job's own metrics report.
      expect((await alice.get(`/api/jobs/${withItems.id}/metrics`)).body.processing_seconds).toBeCloseTo(seconds, 3);
    });

    it('leaves out a completed job that found nothing, its time included', async () => {
      const empty = await processedJob(alice, room.id, [], 4);
      expect(empty.items_found).toBe(0);
      expect(runSeconds(empty)).toBeGreaterThan(0);
      const seconds = runSeconds(withItems);
      expect((await alice.get('/api/dashboard/metrics')).body).toEqual({
        items_cataloged: 3,
        processing_seconds: tenths(seconds),
        seconds_per_item: tenths(seconds / 3),
      });
    });

    it('leaves out a running job and archived items, and keeps other teams apart', async () => {
      // A job still analyzing, with items already saved and a long span: none of it counts.
      const running = await seedJob(room, 'photo');
      await setFields(`JOB#${running}`, 'JOB', {
        status: 'analyzing',
        started_at: new Date(Date.now() - 3_600_000).toISOString(),
        finished_at: new Date().toISOString(),
      });
      await seedItem(room, running, { number: 900 });
      const items = (await alice.get(`/api/inventory/${withItems.id}`)).body;
      await setFields(`ITEM#${items[0].id}`, 'ITEM', { is_archived: true, archived_at: new Date().toISOString() });

      const seconds = runSeconds(withItems);
      expect((await alice.get('/api/dashboard/metrics')).body).toEqual({
        items_cataloged: 2,
        processing_seconds: tenths(seconds),
        seconds_per_item: tenths(seconds / 2),
      });
      const stranger = await Client.signIn(newTeamMember());
      expect((await stranger.get('/api/dashboard/metrics')).body.items_cataloged).toBe(0);
    });
  });
});
