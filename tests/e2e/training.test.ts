/**
 * The training sandbox over HTTP: a new user with training turned on
 * completes every mission through the real endpoints (start, the work on
 * the sandbox claim, checks, quizzes, points banked once), gets a
 * certificate and has it verified publicly. Quiz answers never leak; the
 * checks write nothing; 409 before completion; unknown and revoked codes
 * are {valid: false}; nothing is charged and no remote is called; another
 * team cannot see the sandbox; the flag hides training when it is off.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { featureKeys } from '../../lib/features/keys';
import { CURRICULUM } from '../../lib/training/curriculum-rules';
import { Client, request } from '../support/api';
import { doc, setFields, table } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeEstimation } from '../support/fake-estimation';
import { fakeGateway } from '../support/fake-gateway';
import { newTeamMember } from '../support/tokens';
import { makeTone } from '../support/media';
import { chunkedUpload, makeVideo, photoJob, smallPng } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const dir = mkdtempSync(join(tmpdir(), 'training-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const estimation = fakeEstimation(process.env.TEST_FAKE_ESTIMATION_URL as string);

async function trainee(trainingOn = true) {
  const member = newTeamMember();
  const client = await Client.signIn(member);
  const me = (await client.get('/api/auth/me')).body;
  const teamId = me.team.id as string;
  if (trainingOn)
    await doc.send(
      new PutCommand({ TableName: table(), Item: { ...featureKeys.components(teamId), visible: { training: true } } }),
    );
  await fakeBilling.setBalance(member.current_team_id, 100);
  return { client, member, me: me.user as { id: string } };
}

/** Every property name anywhere in a JSON value. */
function propertyNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(propertyNames);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...propertyNames(v)]);
  return [];
}

const rightAnswers = (key: string) =>
  Object.fromEntries((CURRICULUM.find((m) => m.key === key)?.quiz ?? []).map((q) => [q.id, q.answer]));

describe('training sandbox', () => {
  it('takes a new user through every mission to a verified certificate, charging nothing', async () => {
    const { client, member, me } = await trainee();
    const overview = await client.get('/api/training/overview');
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ training_claim_id: null, points: 0, certificate: { eligible: false } });
    expect(overview.body.missions.map((m: any) => m.key)).toEqual(CURRICULUM.map((m) => m.key));
    expect(propertyNames(overview.body)).not.toContain('answer');

    // Two starts at once: one sandbox claim, a training claim.
    const [a, b] = await Promise.all([client.post('/api/training/start'), client.post('/api/training/start')]);
    expect(a.body.training_claim_id).toBe(b.body.training_claim_id);
    const claimId = a.body.training_claim_id as string;
    expect((await client.get(`/api/claims/${claimId}`)).body).toMatchObject({ is_training: true });
    expect((await client.post('/api/training/certificate')).status).toBe(409);

    const check = (key: string) => client.post(`/api/training/missions/${key}/check`);
    const quiz = (key: string, answers: Record<string, number>) =>
      client.post(`/api/training/missions/${key}/quiz`, { answers });

    // Mission 1: rooms. Checks grade without writing anything.
    const kitchen = (await client.post(`/api/claims/${claimId}/rooms`, { name: 'Kitchen' })).body;
    expect((await check('rooms')).body).toMatchObject({ passed: false, completed: false, points_banked: 0 });
    await client.post(`/api/claims/${claimId}/rooms`, { name: 'Living room' });
    const polled = await client.get('/api/training/missions/rooms/checks');
    expect(polled.body).toMatchObject({ passed: true, started: true });
    expect((await client.get('/api/training/overview')).body.points).toBe(0);
    expect((await check('rooms')).body).toMatchObject({ passed: true, completed: true, points_banked: 50, points: 50 });
    expect((await check('rooms')).body).toMatchObject({ completed: true, points_banked: 0, points: 50 });

    // Mission 2: three photos, two of them grouped.
    const tag = randomUUID().slice(0, 8);
    const names = [`sofa-a-${tag}.png`, `sofa-b-${tag}.png`, `lamp-${tag}.png`];
    const { jobId } = await photoJob(
      client,
      kitchen.id,
      [await smallPng(1), await smallPng(2), await smallPng(3)],
      names,
    );
    const staged = (await client.get(`/api/jobs/${jobId}/staged-photos`)).body as any[];
    expect((await check('photos')).body.passed).toBe(false);
    await client.put(`/api/jobs/${jobId}/staged-photos/regroup`, { groups: [[staged[0].id, staged[1].id]] });
    expect((await check('photos')).body).toMatchObject({ passed: true, points_banked: 100 });

    // Mission 3: process: a training claim's photos become fixture items at once, without the AI and free.
    expect((await client.get(`/api/jobs/${jobId}/quote`)).body).toMatchObject({ credits: 0 });
    const processed = await client.post(`/api/jobs/${jobId}/process`);
    expect(processed.body).toMatchObject({ status: 'complete', items_found: 2 });
    expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(409);
    for (const name of names) expect(await gateway.requests(name)).toEqual([]);
    expect((await check('process')).body).toMatchObject({ passed: true, points_banked: 100 });

    // A walkthrough on the training claim: fixture items with photos at once, nothing charged, no AI.
    const walk = await chunkedUpload(client, kitchen, makeVideo(join(dir, 'walk.mp4'), 2));
    expect(walk.job).toMatchObject({ status: 'complete', items_found: 3 });
    const walkItems = (await client.get(`/api/inventory/${walk.job.id}`)).body as any[];
    expect(walkItems.map((i) => i.photos.length)).toEqual([1, 1, 1]);
    expect((await request('GET', walkItems[0].photo_path)).status).toBe(302);
    // Completed at once is still a terminal path: the job's log is archived and served from the archive.
    const walkLog = (await client.get(`/api/jobs/${walk.job.id}/logs`)).body;
    expect(walkLog.source).toBe('archive');
    expect(walkLog.lines.map((l: any) => l.message)).toContain(
      'Training: 3 item(s) made at once, without the AI; nothing charged',
    );
    // A voice note likewise.
    const note = await chunkedUpload(client, kitchen, readFileSync(makeTone(join(dir, 'note.wav'), 2)), {
      kind: 'audio',
      filename: 'note.wav',
    });
    expect(note.job).toMatchObject({ source_type: 'audio', status: 'complete', items_found: 3 });
    const noteItems = (await client.get(`/api/inventory/${note.job.id}`)).body as any[];
    expect(noteItems.every((i) => i.photos.length === 1 && i.name)).toBe(true);

    // Mission 4: edit, approve, archive, undo.
    const items = (await client.get(`/api/inventory/${jobId}`)).body as any[];
    expect(items.map((i) => [i.name, i.photos.length])).toEqual([
      ['Three-seat fabric sofa', 2],
      ['Arc floor lamp', 1],
    ]);
    await client.put(`/api/inventory/item/${items[0].id}`, { name: 'Sofa, wrong name' });
    expect((await check('review')).body.checks.find((c: any) => c.id === 'undone').passed).toBe(false);
    const feed = (await client.get('/api/activity')).body.items as any[];
    const edit = feed.find((e) => e.action_type === 'update_item' && e.entity_id === items[0].id);
    expect((await client.post(`/api/activity/${edit.id}/restore`)).status).toBe(200);
    await client.put(`/api/inventory/item/${items[0].id}`, { name: 'Grey three-seat sofa' });
    await client.post(`/api/inventory/${jobId}/approve`, { item_id: items[0].id, approved: true });
    expect((await check('review')).body.checks.find((c: any) => c.id === 'archived').passed).toBe(false);
    await client.post(`/api/inventory/item/${items[1].id}/archive`);
    expect((await check('review')).body).toMatchObject({ passed: true, points_banked: 150 });

    // Mission 5: export.
    expect((await client.get(`/api/inventory/${jobId}/export/csv`)).status).toBe(202);
    expect((await check('export')).body).toMatchObject({ passed: true, points_banked: 50 });

    // Mission 6: the send is a dry run: the estimation platform hears nothing.
    const before = (await estimation.requests()).length;
    const sent = await client.post(`/api/claims/${claimId}/submit-to-estimation-platform`, {});
    expect(sent.status).toBe(200);
    expect((await estimation.requests()).length).toBe(before);
    expect((await check('send')).body).toMatchObject({ passed: true, points_banked: 100 });

    // Quizzes: a wrong try, then the right answers; the best score stays.
    const wrong = await quiz('rooms', { 'rooms-1': 0 });
    expect(wrong.body).toMatchObject({ score: 0, total: 2, best: 0 });
    expect(wrong.body.results[0]).toMatchObject({ id: 'rooms-1', correct: false, explanation: expect.any(String) });
    for (const mission of CURRICULUM)
      expect((await quiz(mission.key, rightAnswers(mission.key))).body.score).toBe(mission.quiz.length);
    expect((await quiz('rooms', {})).body).toMatchObject({ score: 0, best: 2 });

    const done = (await client.get('/api/training/overview')).body;
    expect(done.points).toBe(CURRICULUM.reduce((n, m) => n + m.points, 0));
    expect(done.badges.map((b: any) => b.key)).toEqual(['first-steps', 'halfway', 'quiz-ace', 'graduate']);
    expect(propertyNames(done)).not.toContain('answer');
    expect(await fakeBilling.balance(member.current_team_id)).toBe(100);

    // The certificate, once; verified publicly without emails or ids.
    const issued = await client.post('/api/training/certificate');
    expect(issued.status).toBe(200);
    expect((await client.post('/api/training/certificate')).body.code).toBe(issued.body.code);
    const verified = await request('GET', `/api/training/certificates/${issued.body.code}`);
    expect(verified.body).toMatchObject({
      valid: true,
      holder_name: member.user_name,
      team_name: member.current_team_name,
      missions: CURRICULUM.map((m) => m.title),
    });
    const text = JSON.stringify(verified.body);
    for (const secret of [member.email, me.id, claimId]) expect(text).not.toContain(secret);
    const board = (await client.get('/api/training/leaderboard')).body;
    expect(board).toMatchObject({ team_points: done.points });
    expect(board.members[0]).toMatchObject({ user_name: member.user_name, points: done.points, certified: true });

    // Revoked and unknown codes.
    expect((await request('GET', '/api/training/certificates/ABCDEFGHJKMN')).body).toEqual({ valid: false });
    expect((await request('GET', '/api/training/certificates/not-a-code')).body).toEqual({ valid: false });
    await setFields(`CERTIFICATE#${issued.body.code}`, 'CERTIFICATE', { revoked_at: new Date().toISOString() });
    expect((await request('GET', `/api/training/certificates/${issued.body.code}`)).body).toEqual({ valid: false });

    // Another team cannot see the sandbox; its own checks grade its own (empty) sandbox.
    const other = await trainee();
    expect((await other.client.get(`/api/claims/${claimId}`)).status).toBe(403);
    expect((await other.client.get('/api/training/missions/rooms/checks')).body).toMatchObject({
      passed: false,
      started: false,
    });
  });

  it('is hidden (404) for a team whose training flag is off, and 404 for an unknown mission', async () => {
    const { client } = await trainee(false);
    for (const res of [
      await client.get('/api/training/overview'),
      await client.post('/api/training/start'),
      await client.get('/api/training/leaderboard'),
      await client.post('/api/training/missions/rooms/check'),
    ])
      expect(res.status).toBe(404);
    const on = await trainee();
    expect((await on.client.get('/api/training/missions/nope/checks')).status).toBe(404);
  });
});
