import * as z from 'zod';
import { defineRoute } from '../http/route';
import { uuid } from '../http/schemas';
import { roomCreateBody, roomListQuery, roomRenameBody, roomResponse } from './schemas';

const claimParams = z.object({ claim_id: uuid() });
const roomParams = z.object({ room_id: uuid() });

export const roomRoutes = {
  create: defineRoute({
    name: 'createRoom', method: 'POST', path: '/api/claims/{claim_id}/rooms', auth: 'actor', tag: 'rooms',
    summary: 'Add a room to a claim.', handler: 'api/rooms/create-room',
    params: claimParams, body: roomCreateBody, response: roomResponse, successStatus: 201, errors: [404],
  }),
  list: defineRoute({
    name: 'listRooms', method: 'GET', path: '/api/claims/{claim_id}/rooms', auth: 'user', tag: 'rooms',
    summary: 'Active rooms with counts; ?archived=true lists archived ones.', handler: 'api/rooms/list-rooms',
    params: claimParams, query: roomListQuery, response: z.array(roomResponse), errors: [404],
  }),
  get: defineRoute({
    name: 'getRoom', method: 'GET', path: '/api/rooms/{room_id}', auth: 'user', tag: 'rooms',
    summary: 'A room with submitted and unsubmitted counts.', handler: 'api/rooms/get-room',
    params: roomParams, response: roomResponse, errors: [404],
  }),
  rename: defineRoute({
    name: 'renameRoom', method: 'PUT', path: '/api/rooms/{room_id}', auth: 'actor', tag: 'rooms',
    summary: 'Rename a room (recorded, not restorable).', handler: 'api/rooms/rename-room',
    params: roomParams, body: roomRenameBody, response: roomResponse, errors: [404],
  }),
  archive: defineRoute({
    name: 'archiveRoom', method: 'POST', path: '/api/rooms/{room_id}/archive', auth: 'actor', tag: 'rooms',
    summary: 'Archive a room; 400 when it holds a submitted item.', handler: 'api/rooms/archive-room',
    params: roomParams, response: roomResponse, errors: [400, 404],
  }),
  unarchive: defineRoute({
    name: 'unarchiveRoom', method: 'POST', path: '/api/rooms/{room_id}/unarchive', auth: 'actor', tag: 'rooms',
    summary: 'Bring a room back from the archive.', handler: 'api/rooms/unarchive-room',
    params: roomParams, response: roomResponse, errors: [404],
  }),
};
