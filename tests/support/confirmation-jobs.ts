/**
 * A team of its own with credits and a voice note waiting for its Process
 * click (awaiting_confirmation, measured and priced), as an upload leaves it
 * when billing is on: what the Cancel and refund fault tests start from.
 */
import { randomUUID } from 'node:crypto';
import { Client } from './api';
import { fakeBilling } from './fake-billing';
import { recordingAtConfirmation } from './recording-jobs';
import { identityOfMember } from './sends';
import { newTeamMember } from './tokens';
import { newRoom } from './uploads';

export async function audioJobAtConfirmation(recording: { bytes: Buffer; seconds: number; filePrefix: string }) {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 10);
  const room = await newRoom(client, 'Hall');
  const identity = await identityOfMember(member);
  const job = await recordingAtConfirmation(room, identity.user.id, {
    sourceType: 'audio',
    bytes: recording.bytes,
    filename: `${recording.filePrefix}-${randomUUID().slice(0, 8)}.m4a`,
    seconds: recording.seconds,
  });
  return { teamId, client, identity, job };
}
