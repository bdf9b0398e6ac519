/**
 * A team's S3 client (lib/blob/team-credentials.ts): the team-objects role is
 * assumed with the team as its only session tag, the credentials are kept per
 * team while a presigned URL signed with them would still outlive its TTL,
 * and without the role's ARN the function's own client is used.
 */
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { s3 } from '../../../lib/blob/client';
import { s3ForTeam } from '../../../lib/blob/team-credentials';
import { loadSettings, resetSettings } from '../../../lib/config';

const sts = mockClient(STSClient);
const ROLE_ARN = 'arn:aws:iam::123456789012:role/contents-inventory-ci-team-objects';
const TTL_SECONDS = 900;
const HOUR_MS = 3600_000;

function useSettings(overrides: Record<string, string>) {
  resetSettings(
    loadSettings({
      env: {},
      overrides: { PRESIGNED_URL_TTL_SECONDS: String(TTL_SECONDS), ...overrides },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
}

let now = Date.parse('2026-11-29T12:00:00Z');
let issued = 0;

/** Every call answers new credentials, valid for an hour from the mocked clock. */
async function issueCredentials() {
  issued += 1;
  return {
    Credentials: {
      AccessKeyId: `AKIA${issued}`,
      SecretAccessKey: `secret-${issued}`,
      SessionToken: `token-${issued}`,
      Expiration: new Date(now + HOUR_MS),
    },
  };
}

beforeEach(() => {
  sts.reset();
  jest.spyOn(Date, 'now').mockImplementation(() => now);
  useSettings({ TEAM_OBJECTS_ROLE_ARN: ROLE_ARN });
  sts.on(AssumeRoleCommand).callsFake(issueCredentials);
});
afterEach(() => jest.restoreAllMocks());
afterAll(() => resetSettings());

const assumed = () => sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input);

describe('s3ForTeam', () => {
  it('assumes the team-objects role with the team as its only session tag, a session named for the team', async () => {
    const client = await s3ForTeam('team-a1');

    expect(assumed()).toEqual([
      {
        RoleArn: ROLE_ARN,
        RoleSessionName: 'team-team-a1',
        DurationSeconds: 3600,
        Tags: [{ Key: 'team', Value: 'team-a1' }],
      },
    ]);
    const credentials = await client.config.credentials();
    expect(credentials).toMatchObject({
      accessKeyId: `AKIA${issued}`,
      secretAccessKey: `secret-${issued}`,
      sessionToken: `token-${issued}`,
    });
    expect(client).not.toBe(s3());
  });

  it('keeps the client per team: the same team asks STS once, another team asks again with its own tag', async () => {
    const first = await s3ForTeam('team-b1');
    const again = await s3ForTeam('team-b1');
    const other = await s3ForTeam('team-b2');

    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(assumed().map((input) => input.Tags)).toEqual([
      [{ Key: 'team', Value: 'team-b1' }],
      [{ Key: 'team', Value: 'team-b2' }],
    ]);
  });

  it('asks STS once for concurrent requests of one team', async () => {
    const [a, b] = await Promise.all([s3ForTeam('team-c1'), s3ForTeam('team-c1')]);

    expect(a).toBe(b);
    expect(assumed()).toHaveLength(1);
  });

  it('renews the credentials once a presigned URL signed with them could outlive them', async () => {
    const start = now;
    const first = await s3ForTeam('team-d1');
    // More than the URL TTL and a minute left: still used.
    now = start + HOUR_MS - (TTL_SECONDS + 61) * 1000;
    expect(await s3ForTeam('team-d1')).toBe(first);
    // Less than that left: a new session.
    now = start + HOUR_MS - (TTL_SECONDS + 59) * 1000;
    const renewed = await s3ForTeam('team-d1');

    expect(renewed).not.toBe(first);
    expect(assumed()).toHaveLength(2);
    expect(await renewed.config.credentials()).toMatchObject({ accessKeyId: `AKIA${issued}` });
    now = start;
  });

  it('does not keep a failed STS call: the next request asks again', async () => {
    sts.on(AssumeRoleCommand).rejectsOnce(new Error('AccessDenied')).callsFake(issueCredentials);

    await expect(s3ForTeam('team-e1')).rejects.toThrow('AccessDenied');
    await expect(s3ForTeam('team-e1')).resolves.toBeDefined();
    expect(assumed()).toHaveLength(2);
  });

  it('refuses what is not a team id, so a tag can never widen the key prefix', async () => {
    await expect(s3ForTeam('a/claims')).rejects.toThrow(/Not a team id/);
    await expect(s3ForTeam('')).rejects.toThrow(/Not a team id/);
    expect(assumed()).toEqual([]);
  });

  it("uses the function's own client, without STS, when no team-objects role is set (npm start, tests)", async () => {
    useSettings({});

    expect(await s3ForTeam('team-f1')).toBe(s3());
    expect(assumed()).toEqual([]);
  });
});
