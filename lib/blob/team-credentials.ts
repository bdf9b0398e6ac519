/**
 * An S3 client that reaches one team's objects only. The function assumes the
 * team-objects role (TEAM_OBJECTS_ROLE_ARN, declared by deploy/iam.js) with
 * a session tag naming the team, and that role allows objects under
 * teams/${aws:PrincipalTag/team}/ only: a key of another team is refused by
 * S3 itself, whatever the code built. Without the role's ARN (npm start,
 * tests: the emulators have no STS) the function's own client is used.
 *
 * Credentials are kept per team while more than one presigned URL's lifetime
 * (plus a minute) is left, so a URL signed with them stays valid for its
 * whole lifetime. A Lambda role assuming another is role chaining: a session
 * lasts one hour at most.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { settings } from '../config';
import { createS3Client, s3 } from './client';

/** The session tag the role's policy reads (aws:PrincipalTag/team). */
const TEAM_TAG = 'team';
const SESSION_SECONDS = 3600;
const SPARE_SECONDS = 60;
/** Teams one container keeps clients for; the oldest goes first. */
const MAX_TEAMS = 100;
/** A team id as a key segment and a session tag value: no '/', nothing a tag value refuses. */
const TEAM_ID = /^[A-Za-z0-9_-]{1,128}$/;

interface TeamClient {
  client: S3Client;
  expiresAt: number;
}

const clients = new Map<string, Promise<TeamClient>>();
let sts: STSClient | undefined;

/** RoleSessionName allows [\w+=,.@-], 2 to 64 characters; CloudTrail shows it. */
const sessionName = (teamId: string) => `team-${teamId}`.slice(0, 64);

async function assumeForTeam(roleArn: string, teamId: string): Promise<TeamClient> {
  sts ??= new STSClient({});
  const { Credentials } = await sts.send(
    new AssumeRoleCommand({
      RoleArn: roleArn,
      RoleSessionName: sessionName(teamId),
      DurationSeconds: SESSION_SECONDS,
      Tags: [{ Key: TEAM_TAG, Value: teamId }],
    }),
  );
  if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey || !Credentials.Expiration)
    throw new Error('STS AssumeRole returned no credentials for the team-objects role');
  return {
    client: createS3Client({
      accessKeyId: Credentials.AccessKeyId,
      secretAccessKey: Credentials.SecretAccessKey,
      sessionToken: Credentials.SessionToken,
      expiration: Credentials.Expiration,
    }),
    expiresAt: Credentials.Expiration.getTime(),
  };
}

function remember(teamId: string, pending: Promise<TeamClient>): Promise<TeamClient> {
  clients.set(teamId, pending);
  if (clients.size > MAX_TEAMS) clients.delete(clients.keys().next().value as string);
  // A failed call is not kept: the next request asks STS again.
  pending.catch(() => {
    if (clients.get(teamId) === pending) clients.delete(teamId);
  });
  return pending;
}

/** The S3 client for one team's objects (the function's own client where no team-objects role is set). */
export async function s3ForTeam(teamId: string): Promise<S3Client> {
  const config = settings();
  const roleArn = config.TEAM_OBJECTS_ROLE_ARN;
  if (!roleArn) return s3();
  if (!TEAM_ID.test(teamId)) throw new Error(`Not a team id: ${JSON.stringify(teamId)}`);
  const spareMs = (config.PRESIGNED_URL_TTL_SECONDS + SPARE_SECONDS) * 1000;
  const cached = clients.get(teamId);
  if (cached) {
    const entry = await cached;
    if (entry.expiresAt - Date.now() > spareMs) return entry.client;
    if (clients.get(teamId) === cached) clients.delete(teamId);
  }
  const pending = clients.get(teamId) ?? remember(teamId, assumeForTeam(roleArn, teamId));
  return (await pending).client;
}
