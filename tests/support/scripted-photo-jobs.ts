/**
 * Photo jobs whose AI answers are scripted, processed to their end: what the
 * outbound-signal tests follow through the collector, analytics and error
 * tracking.
 */
import { randomUUID } from 'node:crypto';
import { type Client, eventually } from './api';
import { fakeGateway, modelItem } from './fake-gateway';
import { texturedJpeg } from './inventory';
import { photoJob, type TestRoom } from './uploads';

/**
 * A photo job of two photos (two groups) in `room`: 'items' answers an
 * Armchair and a Side table, 'fail' fails every AI request. `prefix` names the
 * photos (the gateway's scripts match on it).
 */
export async function scriptedPhotoJob(client: Client, room: TestRoom, answers: 'items' | 'fail', prefix: string) {
  const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
  const t = randomUUID().slice(0, 8);
  const names = [`${prefix}-a-${t}.jpg`, `${prefix}-b-${t}.jpg`];
  for (const [i, name] of names.entries())
    await gateway.script(
      name,
      answers === 'items'
        ? [{ items: [modelItem(i === 0 ? 'Armchair' : 'Side table', 0.9)] }]
        : [{ items: [], fail: '500' }],
    );
  const { jobId } = await photoJob(client, room.id, [await texturedJpeg(1), await texturedJpeg(2)], names);
  return jobId;
}

/** Starts the job and waits for it to end, complete or in error; its answer then. */
export async function processToEnd(client: Client, jobId: string) {
  const started = await client.post(`/api/jobs/${jobId}/process`);
  expect(started.status).toBe(200);
  return eventually(
    async () => {
      const job = (await client.get(`/api/jobs/${jobId}`)).body;
      return job.status === 'complete' || job.status === 'error' ? job : null;
    },
    120_000,
    300,
  );
}
