/** Loading a room by its id for the caller (lib/tenancy/team-scope-rules.ts). */
import type { Identity } from '../auth/identity-rules';
import { ownRecordOr404 } from '../tenancy/team-scope-rules';
import { getRoom, type Room } from './store';

export const ROOM_NOT_FOUND = 'Room not found';

/** load_room_for_team: 404 for a missing room and for another team's room. */
export async function loadRoomForTeam(identity: Identity, roomId: string): Promise<Room> {
  return ownRecordOr404(identity, await getRoom(roomId, true), ROOM_NOT_FOUND);
}
