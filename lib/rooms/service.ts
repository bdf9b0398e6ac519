/** Room use cases: scope, state change, activity. */
import type { Identity } from '../auth/identity';
import { recordActivity } from '../activity/log';
import { loadClaimForTeam, loadRoomForTeam } from '../tenancy/scope';
import { roomCounts } from './counts';
import { archiveRoom, createRoom, listClaimRooms, renameRoom, unarchiveRoom, type Room } from './room';

export { ROOM_SUBMITTED } from './room';

// Activity goes to the feed of the room's team, also when an admin of another team acted.
const roomEntity = (room: Room) => ({
  team_id: room.team_id,
  entity_type: 'room',
  entity_id: room.id,
  target: room.name,
});

async function withCounts(room: Room) {
  return { ...room, counts: await roomCounts(room.id) };
}

export async function createRoomFor(identity: Identity, claimId: string, name: string) {
  const claim = await loadClaimForTeam(identity, claimId);
  const room = await createRoom(claim, name);
  await recordActivity(identity.actor, {
    action_type: 'create_room',
    action_label: `Added room to claim ${claim.claim_number}`,
    ...roomEntity(room),
    restorable: true,
  });
  return withCounts(room);
}

export async function listRoomsFor(identity: Identity, claimId: string, archived: boolean) {
  const claim = await loadClaimForTeam(identity, claimId);
  const rooms = await listClaimRooms(claim.id, archived);
  return Promise.all(rooms.map(withCounts));
}

export async function getRoomFor(identity: Identity, roomId: string) {
  return withCounts(await loadRoomForTeam(identity, roomId));
}

/** Rename is recorded but not restorable (spec: rename_room). */
export async function renameRoomFor(identity: Identity, roomId: string, name: string) {
  const room = await loadRoomForTeam(identity, roomId);
  const renamed = await renameRoom(room, name);
  await recordActivity(identity.actor, {
    action_type: 'rename_room',
    action_label: `Renamed room "${room.name}" to "${renamed.name}"`,
    ...roomEntity(renamed),
    restorable: false,
  });
  return withCounts(renamed);
}

export async function archiveRoomFor(identity: Identity, roomId: string) {
  const room = await loadRoomForTeam(identity, roomId);
  const archived = await archiveRoom(room);
  await recordActivity(identity.actor, {
    action_type: 'archive_room',
    action_label: 'Archived room',
    ...roomEntity(archived),
    restorable: true,
  });
  return withCounts(archived);
}

export async function unarchiveRoomFor(identity: Identity, roomId: string) {
  const room = await unarchiveRoom(await loadRoomForTeam(identity, roomId));
  await recordActivity(identity.actor, {
    action_type: 'unarchive_room',
    action_label: 'Restored room from archive',
    ...roomEntity(room),
    restorable: true,
  });
  return withCounts(room);
}
