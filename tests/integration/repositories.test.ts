/**
 * Repositories and their conditional writes against the embedded DynamoDB and
 * S3 (started once by the global setup): first-sight races, once-only state
 * changes, archive conditions, cursors and the purge.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { recordActivity } from '../../lib/activity/service';
import { getActivity, listTeamActivity, markRestored } from '../../lib/activity/store';
import { provisionTeam, provisionUser } from '../../lib/auth/provisioning-service';
import { readSignedInRows } from '../../lib/auth/signed-in-rows-store';
import { archiveClaimRecord, unarchiveClaimRecord } from '../../lib/claims/service';
import { addClaimSpend, getClaim, putNewClaim } from '../../lib/claims/store';
import { isConditionRace } from '../../lib/db/client';
import { httpErrorOf } from '../../lib/http/errors';
import { saveItemBatch } from '../../lib/inventory/item-store';
import { insertStagedPhotos, newStagedPhoto } from '../../lib/photos/staged-photo-store';
import { purge, queueExpiredArchives } from '../../lib/purge/service';
import { getRoom, putNewRoom } from '../../lib/rooms/store';
import { createTeam, findTeamByToken } from '../../lib/teams/store';
import { getUser, touchLastSeen } from '../../lib/users/store';
import { eventually } from '../support/api';
import { doc, getRow, listKeys, objectExists, putObject, seedItem, seedJob, setFields, table } from '../support/aws';
import { newTeamMember } from '../support/tokens';

function loginClaims() {
  const m = newTeamMember();
  return {
    user_id: String(m.user_id),
    user_name: m.user_name,
    email: m.email,
    current_team_id: m.current_team_id,
    current_team_name: m.current_team_name,
    current_team_token: m.current_team_token,
    current_team_estimation_intake_key: undefined,
    impersonated_by: undefined,
  };
}

describe('teams and users', () => {
  it('lets exactly one of several racing team creations win', async () => {
    const token = `race-${randomUUID()}`;
    const externalId = randomInt(1, 2_000_000_000);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () =>
        createTeam({ external_id: externalId, name: 'Race', team_token: token, estimation_platform_key: null }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const lost of results.filter((r) => r.status === 'rejected'))
      expect(isConditionRace((lost as PromiseRejectedResult).reason)).toBe(true);
    expect((await findTeamByToken(token))?.id).toBe((won[0] as PromiseFulfilledResult<{ id: string }>).value.id);
  });

  it('converges racing provisioning calls on one team and one user', async () => {
    const claims = loginClaims();
    const teams = await Promise.all(Array.from({ length: 6 }, () => provisionTeam(claims)));
    expect(new Set(teams.map((t) => t.id)).size).toBe(1);
    const users = await Promise.all(Array.from({ length: 6 }, () => provisionUser(claims, teams[0])));
    expect(new Set(users.map((u) => u.id)).size).toBe(1);
  });

  it('reads the team of a login token and its user in two batches, null for what is not known', async () => {
    const claims = loginClaims();
    const team = await provisionTeam(claims);
    const user = await provisionUser(claims, team);
    const token = claims.current_team_token as string;
    const both = await readSignedInRows(token, claims.user_id);
    expect(both.team).toMatchObject(team);
    expect(both.user).toMatchObject({ id: user.id, external_id: claims.user_id, team_id: team.id });
    expect(await readSignedInRows(`unknown-${randomUUID()}`, claims.user_id)).toMatchObject({
      team: null,
      user: { id: user.id },
    });
    expect(await readSignedInRows(null, claims.user_id)).toMatchObject({ team: null, user: { id: user.id } });
    expect(await readSignedInRows(token, `unknown-${randomUUID()}`)).toMatchObject({
      team: { id: team.id },
      user: null,
    });
  });

  it('stamps last_seen_at at most once a minute', async () => {
    const claims = loginClaims();
    const user = await provisionUser(claims, await provisionTeam(claims));
    const first = (await getUser(user.id))?.last_seen_at as string;
    expect(first).toEqual(expect.any(String));
    await touchLastSeen({ ...user, last_seen_at: null }, new Date(Date.parse(first) + 30_000));
    expect((await getUser(user.id))?.last_seen_at).toBe(first);
    const later = new Date(Date.parse(first) + 61_000);
    await touchLastSeen({ ...user, last_seen_at: null }, later);
    expect((await getUser(user.id))?.last_seen_at).toBe(later.toISOString());
  });
});

describe('claims', () => {
  // Refusals are domain errors; the HTTP edge answers them with the status asserted here.
  const asHttp = (promise: Promise<unknown>) =>
    promise.catch((err: unknown) => {
      throw httpErrorOf(err) ?? err;
    });

  it('refuses to archive a submitted claim even when the caller read it before the submit', async () => {
    const claim = await putNewClaim(randomUUID(), randomUUID(), { claim_number: 'IT-1' });
    await setFields(`CLAIM#${claim.id}`, 'CLAIM', { submitted_at: new Date().toISOString() });
    await expect(asHttp(archiveClaimRecord(claim))).rejects.toMatchObject({ status: 400 });
    expect((await getClaim(claim.id, true))?.is_archived).toBe(false);
  });

  it('answers 404 for archiving or unarchiving a claim that is gone, and writes no row', async () => {
    const ghost = { ...(await putNewClaim(randomUUID(), randomUUID(), { claim_number: 'IT-2' })), id: randomUUID() };
    await expect(asHttp(archiveClaimRecord(ghost))).rejects.toMatchObject({ status: 404 });
    await expect(asHttp(unarchiveClaimRecord(ghost))).rejects.toMatchObject({ status: 404 });
    expect(await getRow(`CLAIM#${ghost.id}`, 'CLAIM')).toBeNull();
  });

  it('adds spend atomically under concurrency', async () => {
    const claim = await putNewClaim(randomUUID(), randomUUID(), { claim_number: 'IT-3' });
    await Promise.all(Array.from({ length: 10 }, () => addClaimSpend(claim.id, 3)));
    expect((await getClaim(claim.id, true))?.spend_credits).toBe(30);
  });

  it('indexes archived claims for the purge and removes them from the index on unarchive', async () => {
    const claim = await putNewClaim(randomUUID(), randomUUID(), { claim_number: 'IT-4' });
    await archiveClaimRecord(claim);
    expect((await getRow(`CLAIM#${claim.id}`, 'CLAIM'))?.archpk).toBe('ARCHIVED');
    await unarchiveClaimRecord(claim);
    const row = await getRow(`CLAIM#${claim.id}`, 'CLAIM');
    expect(row?.archpk).toBeUndefined();
    expect(row?.archived_at).toBeNull();
  });
});

describe('activity', () => {
  const actor = () => ({ user_id: randomUUID(), user_name: 'Tester', team_id: randomUUID(), is_admin: false });

  it('marks an entry restored exactly once under racing restores', async () => {
    const by = actor();
    const entry = await recordActivity(by, {
      team_id: by.team_id,
      action_type: 'archive_claim',
      action_label: 'Archived',
      target: 'x',
      restorable: true,
      entity_type: 'claim',
      entity_id: randomUUID(),
    });
    const results = await Promise.all(Array.from({ length: 5 }, () => markRestored(entry.id, 'someone')));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await getActivity(entry.id))?.restored_at).toEqual(expect.any(String));
  });

  it('pages a team feed newest first with cursors, and keeps teams apart', async () => {
    const mine = actor();
    for (let i = 0; i < 5; i++) {
      await recordActivity(
        mine,
        { team_id: mine.team_id, action_type: 'login', action_label: `n${i}`, target: 't', restorable: false },
        new Date(Date.now() + i * 1000),
      );
    }
    await recordActivity(actor(), {
      team_id: randomUUID(),
      action_type: 'login',
      action_label: 'other team',
      target: 't',
      restorable: false,
    });
    const labels: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listTeamActivity(mine.team_id, { limit: 2, cursor });
      labels.push(...page.items.map((e) => e.action_label));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(labels).toEqual(['n4', 'n3', 'n2', 'n1', 'n0']);
  });
});

describe('purge', () => {
  it('deletes a claim with its rooms, jobs, items and objects, and is safe to run twice', async () => {
    const teamId = randomUUID();
    const claim = await putNewClaim(teamId, randomUUID(), { claim_number: 'IT-PURGE' });
    const room = await putNewRoom(claim, 'Bedroom');
    const job = await seedJob(room, 'photo');
    const item = await seedItem(room, job, { number: 1 });
    const prefix = `teams/${teamId}/claims/${claim.id}/`;
    await putObject(`${prefix}jobs/${job}/orig_0001.jpg`);
    await putObject(`${prefix}jobs/${job}/orig_0002.jpg`);

    await purge({ kind: 'claim', claim_id: claim.id, team_id: teamId });
    await purge({ kind: 'claim', claim_id: claim.id, team_id: teamId });

    expect(await getClaim(claim.id, true)).toBeNull();
    expect(await getRoom(room.id, true)).toBeNull();
    expect(await getRow(`JOB#${job}`, 'JOB')).toBeNull();
    expect(await getRow(`ITEM#${item}`, 'ITEM')).toBeNull();
    expect(await listKeys(prefix)).toEqual([]);
  });

  it('deletes one room and leaves its claim and sibling rooms alone', async () => {
    const teamId = randomUUID();
    const claim = await putNewClaim(teamId, randomUUID(), { claim_number: 'IT-PURGE-ROOM' });
    const gone = await putNewRoom(claim, 'Gone');
    const kept = await putNewRoom(claim, 'Kept');
    const keptJob = await seedJob(kept, 'video');
    await putObject(`teams/${teamId}/claims/${claim.id}/jobs/${keptJob}/video.mp4`);
    await purge({ kind: 'room', room_id: gone.id, claim_id: claim.id, team_id: teamId });
    expect(await getRoom(gone.id, true)).toBeNull();
    expect(await getRoom(kept.id, true)).not.toBeNull();
    expect(await getClaim(claim.id, true)).not.toBeNull();
    expect(await listKeys(`teams/${teamId}/claims/${claim.id}/`)).toHaveLength(1);
  });
});

describe('purge of archived items', () => {
  const DAY = 86_400_000;

  /** A claim with one room and one photo job, and the claim's object prefix. */
  async function claimWithJob() {
    const teamId = randomUUID();
    const claim = await putNewClaim(teamId, randomUUID(), { claim_number: `IT-ITEM-${randomUUID().slice(0, 6)}` });
    const room = await putNewRoom(claim, 'Study');
    const jobId = await seedJob(room, 'photo');
    const job = { id: jobId, room_id: room.id, claim_id: claim.id, team_id: teamId };
    return { teamId, claim, room, job, prefix: `teams/${teamId}/claims/${claim.id}/jobs/${jobId}/` };
  }

  /** Items saved as a pipeline saves them, each with photos at the given object keys (every object stored). */
  async function itemsWithPhotos(
    job: { id: string; room_id: string; claim_id: string; team_id: string },
    photoKeys: string[][],
  ) {
    for (const key of new Set(photoKeys.flat())) await putObject(key);
    const drafts = photoKeys.map((keys, i) => ({
      name: `Thing ${i}`,
      quantity: 1,
      confidence: 0.9,
      source_group_index: i,
      photos: keys.map((key) => ({ filename: key.split('/').pop() as string, key })),
    }));
    return saveItemBatch(job, 'Study', `it-${randomUUID()}`, 1, drafts);
  }

  /** Archives an item as the archive route does: archived at `at`, listed on the archived index. */
  async function archive(itemId: string, at: Date) {
    const iso = at.toISOString();
    await setFields(`ITEM#${itemId}`, 'ITEM', {
      is_archived: true,
      archived_at: iso,
      archpk: 'ARCHIVED',
      archsk: `${iso}#item#${itemId}`,
    });
    return iso;
  }

  async function photoRows(itemId: string) {
    const { Items } = await doc.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :photo)',
        ExpressionAttributeValues: { ':pk': `ITEM#${itemId}`, ':photo': 'PHOTO#' },
        ConsistentRead: true,
      }),
    );
    return Items ?? [];
  }

  it('deletes an item archived over 30 days ago with its photo rows and objects, and keeps a recent one', async () => {
    const { job, prefix } = await claimWithJob();
    const [old, recent] = await itemsWithPhotos(job, [
      [`${prefix}item-photos/old-1.jpg`, `${prefix}item-photos/old-2.jpg`],
      [`${prefix}item-photos/recent.jpg`],
    ]);
    await archive(old.id, new Date(Date.now() - 31 * DAY));
    await archive(recent.id, new Date(Date.now() - 2 * DAY));
    expect(await photoRows(old.id)).toHaveLength(2);

    // The daily purge queues it; the service's purge worker deletes it.
    expect(await queueExpiredArchives()).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await getRow(`ITEM#${old.id}`, 'ITEM')) === null);
    await eventually(async () => (await photoRows(old.id)).length === 0);
    expect(await objectExists(`${prefix}item-photos/old-1.jpg`)).toBe(false);
    expect(await objectExists(`${prefix}item-photos/old-2.jpg`)).toBe(false);

    expect(await getRow(`ITEM#${recent.id}`, 'ITEM')).toMatchObject({ is_archived: true });
    expect(await photoRows(recent.id)).toHaveLength(1);
    expect(await objectExists(`${prefix}item-photos/recent.jpg`)).toBe(true);
  });

  it('keeps objects another item, a staged photo or another claim still owns, and is safe to run twice', async () => {
    const { teamId, claim, job, prefix } = await claimWithJob();
    const other = await claimWithJob();
    const own = `${prefix}item-photos/own.jpg`;
    const shared = `${prefix}orig_0001.jpg`; // two items of one photo group show the same photo
    const staged = `${prefix}orig_0002.jpg`; // the job's source photo
    const elsewhere = `${other.prefix}item-photos/moved-in.jpg`; // moved in from another claim's item
    const [gone, sibling] = await itemsWithPhotos(job, [[own, shared, staged, elsewhere], [shared]]);
    await putObject(elsewhere);
    const stagedPhoto = newStagedPhoto({
      jobId: job.id,
      index: 2,
      filename: 'orig_0002.jpg',
      key: staged,
      incomingKey: `${prefix}incoming/orig_0002.jpg`,
      originalFilename: 'shelf.jpg',
      capturedAt: null,
      sizeBytes: 5,
    });
    expect(await insertStagedPhotos(job.id, [stagedPhoto], ['complete'])).toBe('inserted');
    const archivedAt = await archive(gone.id, new Date(Date.now() - 40 * DAY));
    const request = {
      kind: 'item' as const,
      item_id: gone.id,
      claim_id: claim.id,
      team_id: teamId,
      archived_at: archivedAt,
    };

    await purge(request);
    await purge(request);

    expect(await getRow(`ITEM#${gone.id}`, 'ITEM')).toBeNull();
    expect(await photoRows(gone.id)).toEqual([]);
    expect(await objectExists(own)).toBe(false);
    expect(await objectExists(shared)).toBe(true);
    expect(await objectExists(staged)).toBe(true);
    expect(await objectExists(elsewhere)).toBe(true);
    expect(await getRow(`ITEM#${sibling.id}`, 'ITEM')).not.toBeNull();
    expect(await photoRows(sibling.id)).toHaveLength(1);
  });

  it('finishes the photos when redelivered after the item row went, and leaves an item unarchived since alone', async () => {
    const { teamId, claim, job, prefix } = await claimWithJob();
    const [halfDone, unarchived] = await itemsWithPhotos(job, [
      [`${prefix}item-photos/half.jpg`],
      [`${prefix}item-photos/back.jpg`],
    ]);
    const longAgo = new Date(Date.now() - 35 * DAY);
    const halfAt = await archive(halfDone.id, longAgo);
    const backAt = await archive(unarchived.id, longAgo);
    // A first delivery that stopped right after deleting the item row.
    await doc.send(new DeleteCommand({ TableName: table(), Key: { pk: `ITEM#${halfDone.id}`, sk: 'ITEM' } }));
    // Unarchived after the daily purge queued it.
    await setFields(`ITEM#${unarchived.id}`, 'ITEM', { is_archived: false, archived_at: null });
    await doc.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: `ITEM#${unarchived.id}`, sk: 'ITEM' },
        UpdateExpression: 'REMOVE archpk, archsk',
      }),
    );

    const base = { kind: 'item' as const, claim_id: claim.id, team_id: teamId };
    await purge({ ...base, item_id: halfDone.id, archived_at: halfAt });
    await purge({ ...base, item_id: unarchived.id, archived_at: backAt });

    expect(await photoRows(halfDone.id)).toEqual([]);
    expect(await objectExists(`${prefix}item-photos/half.jpg`)).toBe(false);
    expect(await getRow(`ITEM#${unarchived.id}`, 'ITEM')).toMatchObject({ is_archived: false });
    expect(await photoRows(unarchived.id)).toHaveLength(1);
    expect(await objectExists(`${prefix}item-photos/back.jpg`)).toBe(true);
    expect(await listKeys(prefix)).toContain(`${prefix}item-photos/back.jpg`);
  });
});
