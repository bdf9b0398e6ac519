/** Room use cases: scope, state change, activity. */
import { recordActivity, type Restorer } from '../activity/service';
import type { Identity } from '../auth/identity-rules';
import { InvalidRequestError, NotFoundError } from '../errors';
import { loadClaimForTeam } from '../claims/access-service';
import { loadRoomForTeam, ROOM_NOT_FOUND } from './access-service';
import { roomCounts, roomHasSubmittedItem } from './counts-store';
import { listClaimRooms, putNewRoom, setRoomArchived, setRoomName, setRoomUnarchived, type Room } from './store';

const ROOM_SUBMITTED = 'This room holds submitted items and cannot be archived.';

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

const found = (room: Room | null): Room => {
  if (!room) throw new NotFoundError(ROOM_NOT_FOUND);
  return room;
};

/**
 * Archives a loaded room (spec: States, archive: 400 for a room holding a
 * submitted item). The one way a room is archived, so the archive route and
 * every undo that archives (undo of create_room or unarchive_room) obey the rule.
 */
async function archiveRoomRecord(room: Room, now = new Date()): Promise<Room> {
  if (await roomHasSubmittedItem(room.id)) throw new InvalidRequestError(ROOM_SUBMITTED);
  return found(await setRoomArchived(room.id, now));
}

async function unarchiveRoomRecord(room: Room, now = new Date()): Promise<Room> {
  return found(await setRoomUnarchived(room.id, now));
}

export async function createRoom(identity: Identity, claimId: string, name: string) {
  const claim = await loadClaimForTeam(identity, claimId);
  const room = await putNewRoom(claim, name);
  await recordActivity(identity.actor, {
    action_type: 'create_room',
    action_label: `Added room to claim ${claim.claim_number}`,
    ...roomEntity(room),
    restorable: true,
  });
  return withCounts(room);
}

export async function listRooms(identity: Identity, claimId: string, archived: boolean) {
  const claim = await loadClaimForTeam(identity, claimId);
  const rooms = await listClaimRooms(claim.id, archived);
  return Promise.all(rooms.map(withCounts));
}

export async function showRoom(identity: Identity, roomId: string) {
  return withCounts(await loadRoomForTeam(identity, roomId));
}

/** Rename is recorded but not restorable (spec: rename_room). */
export async function renameRoom(identity: Identity, roomId: string, name: string) {
  const room = await loadRoomForTeam(identity, roomId);
  const renamed = found(await setRoomName(room.id, name));
  await recordActivity(identity.actor, {
    action_type: 'rename_room',
    action_label: `Renamed room "${room.name}" to "${renamed.name}"`,
    ...roomEntity(renamed),
    restorable: false,
  });
  return withCounts(renamed);
}

export async function archiveRoom(identity: Identity, roomId: string) {
  const room = await loadRoomForTeam(identity, roomId);
  const archived = await archiveRoomRecord(room);
  await recordActivity(identity.actor, {
    action_type: 'archive_room',
    action_label: 'Archived room',
    ...roomEntity(archived),
    restorable: true,
  });
  return withCounts(archived);
}

export async function unarchiveRoom(identity: Identity, roomId: string) {
  const room = await unarchiveRoomRecord(await loadRoomForTeam(identity, roomId));
  await recordActivity(identity.actor, {
    action_type: 'unarchive_room',
    action_label: 'Restored room from archive',
    ...roomEntity(room),
    restorable: true,
  });
  return withCounts(room);
}

/** Undo of the room's activity entries (lib/api/undo-restorers.ts): adding a room is undone by archiving it. */
export const roomRestorers: Record<string, Restorer> = {
  create_room: async (e, id) => archiveRoomRecord(await loadRoomForTeam(id, e.entity_id)),
  archive_room: async (e, id) => unarchiveRoomRecord(await loadRoomForTeam(id, e.entity_id)),
  unarchive_room: async (e, id) => archiveRoomRecord(await loadRoomForTeam(id, e.entity_id)),
};
