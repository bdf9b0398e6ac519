/**
 * One team of adjusters, looping until the load's time is up: a claim with
 * two rooms, a photo job, a video and a voice note, a contents list, review
 * edits, both exports, both sends; on its first round one homeowner wizard
 * session. What it did is kept for the final checks.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '../../support/api';
import { SENDABLE_CLAIM_DETAILS } from '../../support/claim-details';
import { type LoginClaimsInput, newTeamMember } from '../../support/tokens';
import { newRoom } from '../../support/uploads';
import type { Fakes } from './fakes';
import {
  exportStep,
  expectStatus,
  getJob,
  homeownerStep,
  importStep,
  jobEnded,
  photoStep,
  processJob,
  recordingStep,
  reviewStep,
  type SendOutcome,
  sendSteps,
} from './steps';
import type { Traffic } from './traffic';

export interface Media {
  video: Buffer;
  audio: Buffer;
}

export interface TeamRecord {
  /** The team's external id (the billing ledger's team_id). */
  key: string;
  member: LoginClaimsInput;
  client: Client;
  claims: string[];
  /** Every job of the team's claims, the contents lists' read jobs included. */
  jobs: Set<string>;
  /** When the Process click of a job was answered (ms since epoch). */
  clickedAt: Map<string, number>;
  exports: { id: string; status: string }[];
  sends: SendOutcome[];
  rounds: number;
  homeownerSessions: number;
  errors: string[];
}

/** Sets the team up: platform keys the fakes know, a signed-in adjuster. */
export async function newTeam(fakes: Fakes, traffic: Traffic): Promise<TeamRecord> {
  const estimationKey = `est-key-${randomUUID()}`;
  const platformToken = `cp-team-${randomUUID()}`;
  fakes.estimation.registerKey(estimationKey);
  fakes.claimsPlatform.registerToken(platformToken);
  const member = newTeamMember({
    current_team_estimation_intake_key: estimationKey,
    current_team_token: platformToken,
  });
  const client = await Client.signIn(member);
  const key = String(member.current_team_id);
  traffic.ownerOfToken.set(client.token, key);
  return {
    key,
    member,
    client,
    claims: [],
    jobs: new Set(),
    clickedAt: new Map(),
    exports: [],
    sends: [],
    rounds: 0,
    homeownerSessions: 0,
    errors: [],
  };
}

/** The jobs of every room of the claim. */
export async function claimJobs(client: Client, claimId: string): Promise<any[]> {
  const rooms = expectStatus(await client.get(`/api/claims/${claimId}/rooms`), 'claim rooms', 200) as any[];
  const jobs: any[] = [];
  for (const room of rooms)
    jobs.push(...(expectStatus(await client.get(`/api/rooms/${room.id}/jobs`), 'room jobs', 200) as any[]));
  return jobs;
}

/** The claim's page as the SPA shows it while the jobs run: the claims list, the claim, its rooms and their items. */
async function viewClaim(client: Client, claimId: string): Promise<void> {
  expectStatus(await client.get('/api/claims'), 'claims', 200);
  expectStatus(await client.get(`/api/claims/${claimId}`), 'claim', 200);
  const rooms = expectStatus(await client.get(`/api/claims/${claimId}/rooms`), 'claim rooms', 200) as any[];
  for (const room of rooms) expectStatus(await client.get(`/api/rooms/${room.id}/inventory`), 'room inventory', 200);
}

/** Starts every job of the claim not started yet, and waits until each has ended (the claim's page open). */
async function settleClaim(team: TeamRecord, claimId: string): Promise<any[]> {
  const jobs = await claimJobs(team.client, claimId);
  for (const job of jobs) {
    team.jobs.add(job.id);
    if (!team.clickedAt.has(job.id)) {
      await processJob(team.client, job.id);
      team.clickedAt.set(job.id, Date.now());
    }
  }
  const ended: any[] = [];
  for (const job of jobs) {
    await viewClaim(team.client, claimId);
    ended.push(await jobEnded(team.client, job.id));
  }
  return ended;
}

async function clicked(team: TeamRecord, jobId: string | Promise<string>) {
  const id = await jobId;
  team.jobs.add(id);
  team.clickedAt.set(id, Date.now());
  return id;
}

/** One round of the adjuster's work on a new claim. */
async function round(team: TeamRecord, fakes: Fakes, media: Media, list: Uint8Array, onToken: (t: string) => void) {
  const { client } = team;
  const tag = `${team.key}-${team.rounds}-${randomUUID().slice(0, 6)}`;
  const kitchen = await newRoom(client, 'Kitchen');
  const claimId = kitchen.claim_id;
  team.claims.push(claimId);
  const bedroom = expectStatus(await client.post(`/api/claims/${claimId}/rooms`, { name: 'Bedroom' }), 'room', 201);
  expectStatus(await client.patch(`/api/claims/${claimId}`, SENDABLE_CLAIM_DETAILS), 'claim details', 200);
  const photoJobId = await clicked(team, photoStep(client, fakes, kitchen.id, tag));
  await clicked(team, recordingStep(client, bedroom.id, 'video', media.video, `walk-${tag}.mp4`));
  await clicked(team, recordingStep(client, bedroom.id, 'audio', media.audio, `note-${tag}.m4a`));
  const imported = await importStep(client, fakes, claimId, list, tag);
  team.jobs.add(imported.readJobId);
  for (const id of imported.jobIds) await clicked(team, id);
  if (team.homeownerSessions === 0) {
    await homeownerStep(client, claimId, onToken);
    team.homeownerSessions += 1;
  }
  await settleClaim(team, claimId);
  // The read job belongs to no room: it is followed on its own.
  await jobEnded(client, imported.readJobId);

  if ((await getJob(client, photoJobId)).status === 'complete') await reviewStep(client, photoJobId);
  team.exports.push(await exportStep(client, `/api/claims/${claimId}/export/excel`));
  team.exports.push(await exportStep(client, `/api/claims/${claimId}/report.pdf`));
  team.sends.push(...(await sendSteps(client, claimId)));
}

/** Rounds until `until` (ms since epoch); a round under way when the time is up is finished. */
export async function runTeam(
  team: TeamRecord,
  fakes: Fakes,
  media: Media,
  list: Uint8Array,
  until: number,
  traffic: Traffic,
): Promise<void> {
  const onToken = (token: string) => traffic.ownerOfToken.set(token, team.key);
  while (Date.now() < until) {
    try {
      await round(team, fakes, media, list, onToken);
    } catch (err) {
      team.errors.push((err as Error).message.split('\n')[0]);
      // A claim left half-done is still settled, so the end checks see every job ended.
      const claimId = team.claims.at(-1);
      if (claimId) await settleClaim(team, claimId).catch(() => {});
    }
    team.rounds += 1;
  }
}
