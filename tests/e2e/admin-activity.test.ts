/**
 * An admin acting on another team's resource: the activity entry belongs to
 * the team that owns the resource (with the admin as the actor), so that team
 * sees and can undo it, and the admin's own teammates never see it.
 */
import { Client } from '../support/api';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { newTeamMember, teammateOf } from '../support/tokens';

let owner: Client; // team B, owns the claim
let admin: Client; // allowlisted, signed in on team A
let adminMate: Client; // team A, not an admin
let adminUserId: string;

beforeAll(async () => {
  owner = await Client.signIn(newTeamMember());
  const adminMember = newTeamMember({ user_id: TEST_ADMIN_EXTERNAL_IDS[1] });
  admin = await Client.signIn(adminMember);
  adminMate = await Client.signIn(teammateOf(adminMember));
  const me = (await admin.get('/api/auth/me')).body;
  expect(me.is_admin).toBe(true);
  adminUserId = me.user.id;
});

const feedOf = async (client: Client) => {
  const res = await client.get('/api/activity?limit=100');
  expect(res.status).toBe(200);
  return res.body.items as Array<Record<string, any>>;
};

describe("an admin acting on another team's claim", () => {
  it("records the archive in the owning team's feed with the admin as actor; the owners can undo it", async () => {
    const claim = (await owner.post('/api/claims', { claim_number: 'ADM-ACT-1' })).body;
    const archived = await admin.post(`/api/claims/${claim.id}/archive`);
    expect(archived.status).toBe(200);

    const entry = (await feedOf(owner)).find((e) => e.action_type === 'archive_claim' && e.entity_id === claim.id);
    expect(entry).toMatchObject({
      team_id: claim.team_id,
      user_id: adminUserId,
      user_name: admin.claims.user_name,
      restorable: true,
    });

    expect((await feedOf(adminMate)).some((e) => e.entity_id === claim.id)).toBe(false);
    expect((await feedOf(admin)).some((e) => e.entity_id === claim.id)).toBe(false);

    const undo = await owner.post(`/api/activity/${entry!.id}/restore`);
    expect(undo.status).toBe(200);
    expect((await owner.get(`/api/claims/${claim.id}`)).body.is_archived).toBe(false);
  });

  it("records edits and room changes in the owning team's feed, and the admin's undo there too", async () => {
    const claim = (await owner.post('/api/claims', { claim_number: 'ADM-ACT-2', insured_name: 'Before' })).body;
    const room = (await owner.post(`/api/claims/${claim.id}/rooms`, { name: 'Study' })).body;

    expect((await admin.patch(`/api/claims/${claim.id}`, { insured_name: 'After' })).status).toBe(200);
    expect((await admin.post(`/api/claims/${claim.id}/rooms`, { name: 'Added by admin' })).status).toBe(201);
    expect((await admin.put(`/api/rooms/${room.id}`, { name: 'Renamed by admin' })).status).toBe(200);
    expect((await admin.post(`/api/rooms/${room.id}/archive`)).status).toBe(200);

    const ownerFeed = await feedOf(owner);
    const byAdmin = ownerFeed.filter((e) => e.user_id === adminUserId).map((e) => e.action_type);
    expect(byAdmin).toEqual(expect.arrayContaining(['update_claim', 'create_room', 'rename_room', 'archive_room']));
    expect(ownerFeed.filter((e) => e.user_id === adminUserId).every((e) => e.team_id === claim.team_id)).toBe(true);

    const archiveRoom = ownerFeed.find((e) => e.action_type === 'archive_room' && e.entity_id === room.id)!;
    expect((await admin.post(`/api/activity/${archiveRoom.id}/restore`)).status).toBe(200);
    expect((await feedOf(owner)).find((e) => e.action_type === 'restore' && e.entity_id === room.id)).toMatchObject({
      user_id: adminUserId,
      team_id: claim.team_id,
    });

    const mateFeed = await feedOf(adminMate);
    expect(
      mateFeed.some((e) => e.entity_id === claim.id || e.entity_id === room.id || e.target === 'Added by admin'),
    ).toBe(false);
  });
});
