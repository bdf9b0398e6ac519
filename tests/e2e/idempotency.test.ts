/**
 * The Idempotency-Key header on the create routes (POST /api/claims,
 * /api/upload-photos, /api/upload-photos/{id}/append, /api/uploads/init,
 * /api/jobs/{id}/process): a retry gets the first answer and creates, reserves
 * or charges nothing twice; the same key with another body is refused (422);
 * keys are scoped to the team and the route; without the header nothing changes.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { Client, jobInStatus, request } from '../support/api';
import { doc, getRow, table } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob, smallPng, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

let alice: Client;
let aliceTeam: number;
let bob: Client;
let room: TestRoom;

beforeAll(async () => {
  const member = newTeamMember();
  aliceTeam = member.current_team_id;
  alice = await Client.signIn(member);
  bob = await Client.signIn(newTeamMember());
  room = await newRoom(alice, 'Hall');
});

async function claimsNumbered(client: Client, claimNumber: string): Promise<any[]> {
  const res = await client.get('/api/claims');
  expect(res.status).toBe(200);
  return res.body.filter((c: any) => c.claim_number === claimNumber);
}

async function rowsWhere(pkPrefix: string, field: string, value: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, any> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: table(),
        FilterExpression: 'begins_with(pk, :p) AND #f = :v',
        ExpressionAttributeNames: { '#f': field },
        ExpressionAttributeValues: { ':p': pkPrefix, ':v': value },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    out.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

describe('POST /api/claims with Idempotency-Key', () => {
  it('answers a retry with the first answer and creates one claim', async () => {
    const key = randomUUID();
    const number = `IDEM-${randomUUID().slice(0, 8)}`;
    const first = await alice.post('/api/claims', { claim_number: number }, withKey(key));
    expect(first.status).toBe(201);
    const again = await alice.post('/api/claims', { claim_number: number }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const listed = await claimsNumbered(alice, number);
    expect(listed.map((c) => c.id)).toEqual([first.body.id]);
  });

  it('refuses the same key with a different body (422) and creates nothing', async () => {
    const key = randomUUID();
    const number = `IDEM-${randomUUID().slice(0, 8)}`;
    expect((await alice.post('/api/claims', { claim_number: number }, withKey(key))).status).toBe(201);
    const other = await alice.post('/api/claims', { claim_number: `${number}-other` }, withKey(key));
    expect(other.status).toBe(422);
    expect(other.body.detail).toMatch(/Idempotency-Key/);
    expect(await claimsNumbered(alice, `${number}-other`)).toEqual([]);
    expect(await claimsNumbered(alice, number)).toHaveLength(1);
  });

  it("never answers another team's request or another route's with a key already used", async () => {
    const key = randomUUID();
    const number = `IDEM-${randomUUID().slice(0, 8)}`;
    const mine = await alice.post('/api/claims', { claim_number: number }, withKey(key));
    const theirs = await bob.post('/api/claims', { claim_number: number }, withKey(key));
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect((await claimsNumbered(bob, number)).map((c) => c.id)).toEqual([theirs.body.id]);
    expect((await claimsNumbered(alice, number)).map((c) => c.id)).toEqual([mine.body.id]);

    // The same key on another route is another request: it runs and answers for itself.
    const onRoom = await alice.post(
      '/api/uploads/init',
      { kind: 'video', filename: 'walk.mp4', room_id: room.id, total_size: 1000 },
      withKey(key),
    );
    expect(onRoom.status).toBe(201);
    expect(onRoom.body.upload_id).toEqual(expect.any(String));
  });

  it('runs every request without the header, as before', async () => {
    const number = `IDEM-${randomUUID().slice(0, 8)}`;
    const a = await alice.post('/api/claims', { claim_number: number });
    const b = await alice.post('/api/claims', { claim_number: number });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(await claimsNumbered(alice, number)).toHaveLength(2);
  });

  it('creates one claim when the same request arrives several times at once (the others replay or get 409)', async () => {
    const key = randomUUID();
    const number = `IDEM-${randomUUID().slice(0, 8)}`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => alice.post('/api/claims', { claim_number: number }, withKey(key))),
    );
    const listed = await claimsNumbered(alice, number);
    expect(listed).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) expect(answer.body.detail).toMatch(/in progress/);
      else expect(answer).toMatchObject({ status: 201, body: { id: listed[0].id } });
    }
  });

  it('refuses a malformed key with 422 and writes nothing', async () => {
    const number = `IDEM-${randomUUID().slice(0, 8)}`;
    const res = await alice.post('/api/claims', { claim_number: number }, withKey('x'.repeat(256)));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'header.Idempotency-Key', message: expect.any(String) }]);
    expect(await claimsNumbered(alice, number)).toEqual([]);
  });

  it('documents the header on the create operations only', async () => {
    const openapi = (await request('GET', '/api/openapi.json')).body;
    const headerOn = (path: string, method: string) =>
      (openapi.paths[path][method].parameters ?? []).some(
        (p: any) => p.in === 'header' && p.name === 'Idempotency-Key',
      );
    expect(headerOn('/api/claims', 'post')).toBe(true);
    expect(headerOn('/api/uploads/init', 'post')).toBe(true);
    expect(headerOn('/api/upload-photos', 'post')).toBe(true);
    expect(headerOn('/api/upload-photos/{id}/append', 'post')).toBe(true);
    expect(headerOn('/api/jobs/{id}/process', 'post')).toBe(true);
    expect(headerOn('/api/claims/{id}', 'patch')).toBe(false);
  });
});

describe('uploads and photo batches with Idempotency-Key', () => {
  it('reserves one upload for a repeated POST /api/uploads/init', async () => {
    const initRoom = await newRoom(alice, 'Init');
    const key = randomUUID();
    const body = { kind: 'video', filename: 'walkthrough.mp4', room_id: initRoom.id, total_size: 5_000_000 };
    const first = await alice.post('/api/uploads/init', body, withKey(key));
    expect(first.status).toBe(201);
    const again = await alice.post('/api/uploads/init', body, withKey(key));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await rowsWhere('UPLOAD#', 'room_id', initRoom.id)).toHaveLength(1);
  });

  it('starts one photo job for a repeated POST /api/upload-photos and reserves an append batch once', async () => {
    const photoRoom = await newRoom(alice, 'Photos');
    const body = {
      room_id: photoRoom.id,
      files: [
        { filename: 'a.png', size: 1000 },
        { filename: 'b.png', size: 2000 },
      ],
    };
    const key = randomUUID();
    const first = await alice.post('/api/upload-photos', body, withKey(key));
    expect(first.status).toBe(201);
    const again = await alice.post('/api/upload-photos', body, withKey(key));
    expect(again.body).toEqual(first.body);
    const jobs = await alice.get(`/api/rooms/${photoRoom.id}/jobs`);
    expect(jobs.body.map((j: any) => j.id)).toEqual([first.body.job.id]);

    const jobId = first.body.job.id as string;
    const appendKey = randomUUID();
    const batch = { files: [{ filename: 'c.png', size: 4000 }] };
    const appended = await alice.post(`/api/upload-photos/${jobId}/append`, batch, withKey(appendKey));
    expect(appended.status).toBe(200);
    const repeated = await alice.post(`/api/upload-photos/${jobId}/append`, batch, withKey(appendKey));
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual(appended.body);
    const row = await getRow(`JOB#${jobId}`, 'JOB');
    expect(row!.photo_bytes_reserved).toBe(7000);
    expect(row!.photo_next_index).toBe(3);
  });
});

describe('POST /api/jobs/{id}/process with Idempotency-Key', () => {
  it('charges once and runs once when the start is retried', async () => {
    await fakeBilling.setBalance(aliceTeam, 20);
    const name = `idem-${randomUUID().slice(0, 8)}.png`;
    const { jobId } = await photoJob(alice, room.id, [await smallPng(3)], [name]);
    await gateway.script(name, [
      {
        items: [modelItem('Hall table', 0.9, { estimated_price: 80, evidence: 'a table' })],
      },
    ]);

    const key = randomUUID();
    const first = await alice.post(`/api/jobs/${jobId}/process`, undefined, withKey(key));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ billing_charged: true, billing_amount: 1 });
    const again = await alice.post(`/api/jobs/${jobId}/process`, undefined, withKey(key));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    const done = await jobInStatus(alice, jobId);
    expect(done).toMatchObject({ status: 'complete', items_found: 1 });
    expect(await fakeBilling.balance(aliceTeam)).toBe(19);
    const spends = (await fakeBilling.requests(aliceTeam)).filter(
      (r) => r.path.endsWith('/spend') && JSON.stringify(r.body).includes(jobId),
    );
    expect(spends).toHaveLength(1);
    expect(await gateway.requests(name)).toHaveLength(1);
  });
});
