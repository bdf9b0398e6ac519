/**
 * Items for end-to-end tests of the review surface, made the way a user makes
 * them: photos uploaded to a photo job, the fake AI gateway scripted to find
 * the given items in each photo, the job processed to complete.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { Client, eventually } from './api';
import { seedJob } from './aws';
import { fakeBilling } from './fake-billing';
import { fakeGateway, modelItem } from './fake-gateway';
import { newTeamMember, type LoginClaimsInput } from './tokens';
import { newRoom, photoJob, type TestRoom } from './uploads';

/** A textured JPEG (realistic size), different per seed. */
export function texturedJpeg(seed = 1, width = 160, height = 120): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * seed * 31 + (i >> 7) * 17) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A signed-in member of a new team with credits, and a room of a new claim. */
export async function teamWithRoom(
  roomName = 'Living room',
  balance = 1000,
): Promise<{ client: Client; member: LoginClaimsInput; room: TestRoom }> {
  const member = newTeamMember();
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, balance);
  return { client, member, room: await newRoom(client, roomName) };
}

/**
 * A completed photo job in `roomId`: one photo per entry of `photos`, in
 * which the model finds the named items (`modelItem` overrides per name with
 * `extra`). Answers the job id and its items in item-number order, each with
 * its photos (GET /api/inventory/{job_id}).
 */
export async function jobWithItems(
  client: Client,
  roomId: string,
  photos: string[][],
  extra: Record<string, Record<string, unknown>> = {},
): Promise<{ jobId: string; items: any[] }> {
  const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
  const tag = randomUUID().slice(0, 8);
  const filenames = photos.map((_, i) => `item-photo-${tag}-${i}.jpg`);
  for (let i = 0; i < photos.length; i++)
    await gateway.script(filenames[i], [{ items: photos[i].map((name) => modelItem(name, 0.9, extra[name] ?? {})) }]);
  const bytes = await Promise.all(photos.map((_, i) => texturedJpeg(i + 1)));
  const { jobId } = await photoJob(client, roomId, bytes, filenames);
  const started = await client.post(`/api/jobs/${jobId}/process`);
  if (started.status !== 200) throw new Error(`process: ${started.status} ${JSON.stringify(started.body)}`);
  await eventually(
    async () => {
      const job = await client.get(`/api/jobs/${jobId}`);
      if (job.body.status === 'error') throw new Error(`job failed: ${job.body.error_message}`);
      return job.body.status === 'complete';
    },
    90_000,
    300,
  );
  const items = await client.get(`/api/inventory/${jobId}`);
  if (items.status !== 200) throw new Error(`inventory: ${items.status}`);
  return { jobId, items: items.body };
}

/**
 * A stored photo job in the room with `names` added to it by hand, in order:
 * items for tests of what reads items (sends, exports), without running a
 * pipeline. Answers the job id and the items as the add route answered them.
 */
export async function typedItems(
  client: Client,
  room: { id: string; claim_id: string; team_id: string },
  names: string[],
): Promise<{ jobId: string; items: any[] }> {
  const jobId = await seedJob(room, 'photo');
  const items: any[] = [];
  for (const name of names) {
    const res = await client.post(`/api/inventory/${jobId}/item`, { name });
    if (res.status !== 201) throw new Error(`add item: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(res.body);
  }
  return { jobId, items };
}
