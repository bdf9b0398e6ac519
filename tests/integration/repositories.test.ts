/**
 * Repositories and their conditional writes against the embedded DynamoDB and
 * S3 (started once by the global setup): first-sight races, once-only state
 * changes, archive conditions, cursors and the purge.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { recordActivity } from '../../lib/activity/service';
import { getActivity, listTeamActivity, markRestored } from '../../lib/activity/store';
import { provisionTeam, provisionUser } from '../../lib/auth/provisioning-service';
import { archiveClaimRecord, unarchiveClaimRecord } from '../../lib/claims/service';
import { addClaimSpend, getClaim, putNewClaim } from '../../lib/claims/store';
import { isConditionRace } from '../../lib/db/client';
import { httpErrorOf } from '../../lib/http/errors';
import { purge } from '../../lib/purge/service';
import { getRoom, putNewRoom } from '../../lib/rooms/store';
import { createTeam, findTeamByToken } from '../../lib/teams/store';
import { getUser, touchLastSeen } from '../../lib/users/store';
import { getRow, listKeys, putObject, seedItem, seedJob, setFields } from '../support/aws';
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
