/** Teams ready to send to the estimation platform and the claims platform (the run's fakes), for the send tests. */
import { randomUUID } from 'node:crypto';
import { type Identity, identityOf } from '../../lib/auth/identity-rules';
import { sendKeys } from '../../lib/sends/keys';
import { findTeamByExternalId } from '../../lib/teams/store';
import { findUserByExternalId } from '../../lib/users/store';
import { Client } from './api';
import { SENDABLE_CLAIM_DETAILS } from './claim-details';
import { getRow, setFields } from './aws';
import { fakeBilling } from './fake-billing';
import { fakeClaimsPlatform } from './fake-claims-platform';
import { fakeEstimation } from './fake-estimation';
import { jobWithItems, typedItems } from './inventory';
import { type LoginClaimsInput, newTeamMember } from './tokens';
import { newRoom } from './uploads';

export const fake = () => fakeEstimation(process.env.TEST_FAKE_ESTIMATION_URL as string);
/** The test service's PUBLIC_BASE_URL (tests/support/service-env.ts). */
export const PUBLIC_BASE_URL = 'https://inventory.example.test';

export interface SendTeam {
  client: Client;
  member: LoginClaimsInput;
  key: string;
  claimId: string;
  roomId: string;
  jobId: string;
  items: any[];
}

/**
 * A team with an estimation key the fake knows, a claim with insured details
 * and a job with `names` as its items; `balance` credits left. The items are
 * typed in by hand on a stored job (no pipeline runs: a send reads items, not
 * how they were found) unless `photos` is asked for: then they come from a
 * completed photo job, one photo per entry of `names`, each item with photos.
 */
export async function sendTeam(
  names: string[][] = [['Sofa'], ['Lamp']],
  balance = 1000,
  options: { photos?: boolean } = {},
): Promise<SendTeam> {
  const key = `est-key-${randomUUID()}`;
  await fake().registerKey(key);
  const member = newTeamMember({ current_team_estimation_intake_key: key });
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 1000);
  const room = await newRoom(client, 'Living Room');
  await client.patch(`/api/claims/${room.claim_id}`, SENDABLE_CLAIM_DETAILS);
  const { jobId, items } = options.photos
    ? await jobWithItems(client, room.id, names)
    : await typedItems(client, room, names.flat());
  await fakeBilling.setBalance(member.current_team_id, balance);
  return { client, member, key, claimId: room.claim_id, roomId: room.id, jobId, items };
}

export const submit = (t: SendTeam, body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  t.client.post(`/api/claims/${t.claimId}/submit-to-estimation-platform`, body, headers ? { headers } : {});

/** Adds an item by hand to the team's job; its id. */
export async function addItem(t: Pick<SendTeam, 'client' | 'jobId'>, name: string): Promise<string> {
  const res = await t.client.post(`/api/inventory/${t.jobId}/item`, { name });
  if (res.status !== 201) throw new Error(`add item: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** The team's send charges at the fake billing service (references ce-...). */
export const spendsOf = async (t: SendTeam) =>
  (await fakeBilling.spends(t.member.current_team_id)).filter((s) => String(s.reference).startsWith('ce-'));

/** The service's Identity of a signed-in test member, for calling the send use cases in-process. */
export async function identityOfMember(member: LoginClaimsInput): Promise<Identity> {
  const user = await findUserByExternalId(String(member.user_id));
  const team = await findTeamByExternalId(member.current_team_id);
  if (!user || !team) throw new Error('the team member was not provisioned');
  return identityOf(user, team, { authMode: 'jwt', tokenVia: 'bearer', rawClaims: null });
}

export const claimsPlatform = () => fakeClaimsPlatform(process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string);

/**
 * A team whose token the fake claims platform knows, with `balance` credits
 * and a Study whose items `names` are typed in by hand; its Identity for
 * calling the send in-process.
 */
export async function claimsPlatformTeam(names = ['Globe', 'Atlas'], balance = 1000) {
  const token = `cp-team-${randomUUID()}`;
  await claimsPlatform().registerToken(token);
  const member = newTeamMember({ current_team_token: token });
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, balance);
  const room = await newRoom(client, 'Study');
  const { jobId, items } = await typedItems(client, room, names);
  const identity = await identityOfMember(member);
  return { member, token, client, claimId: room.claim_id, roomId: room.id, jobId, items, identity };
}

/** The id of the claim's open (or last) claims platform send. */
export async function openSubmissionId(claimId: string): Promise<string> {
  const key = sendKeys.claimSend(claimId);
  return String((await getRow(key.pk, key.sk))?.submission_id);
}

/**
 * What time does to a send whose request died: the request's lease on the send's run has run out and no heartbeat
 * came for longer than the watchdog's quiet threshold (STUCK_JOB_MINUTES, 15), so the stack's watchdog, on its next
 * tick, finds the request's stage without a worker, or the next stage queued with its message lost.
 */
export async function expireSubmissionLease(submissionId: string): Promise<void> {
  await expireRunLease(sendKeys.submission(submissionId), submissionId);
}

/** The same for a claim's estimation send, whose run is addressed by the claim's id. */
export async function expireEstimationSendLease(claimId: string): Promise<void> {
  await expireRunLease(sendKeys.estimationSend(claimId), claimId);
}

async function expireRunLease(key: { pk: string; sk: string }, id: string): Promise<void> {
  const quiet = new Date(Date.now() - 20 * 60_000).toISOString();
  await setFields(key.pk, key.sk, {
    stage_lease_until: new Date(Date.now() - 1000).toISOString(),
    heartbeat_at: quiet,
    activesk: `${quiet}#${id}`,
  });
}
