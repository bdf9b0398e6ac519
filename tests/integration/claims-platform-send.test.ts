/**
 * The claims platform send in-process against the embedded stack and the
 * run's fakes, for settings the test service does not run with: an
 * enterprise team (no charge) and the global bearer token standing in for a
 * team without its own; and a request made while a send is open.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../lib/config';
import { featureKeys } from '../../lib/features/keys';
import { quoteClaimsPlatformSend, submitToClaimsPlatform } from '../../lib/sends/claims-platform-service';
import { NOTHING_TO_SUBMIT } from '../../lib/sends/claims-platform-rules';
import { getSubmission } from '../../lib/sends/submission-store';
import { Client, eventually } from '../support/api';
import { doc, table } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeClaimsPlatform } from '../support/fake-claims-platform';
import { typedItems } from '../support/inventory';
import { type LoginClaimsInput, newTeamMember } from '../support/tokens';
import { identityOfMember } from '../support/sends';
import { newRoom } from '../support/uploads';

jest.setTimeout(120_000);

const fake = () => fakeClaimsPlatform(process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string);

async function teamWithItems(member: LoginClaimsInput) {
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 1000);
  const room = await newRoom(client, 'Office');
  const { items } = await typedItems(client, room, ['Monitor', 'Desk lamp']);
  const identity = await identityOfMember(member);
  return { claimId: room.claim_id, team: identity.team, identity, items };
}

const sendCharges = async (member: LoginClaimsInput) =>
  (await fakeBilling.spends(member.current_team_id)).filter((s) => s.reference.startsWith('as-send:'));

it('charges an enterprise team nothing, and its quote says so', async () => {
  const token = `cp-ent-${randomUUID()}`;
  await fake().registerToken(token);
  const member = newTeamMember({ current_team_token: token });
  const { claimId, team, identity } = await teamWithItems(member);
  await doc.send(
    new PutCommand({ TableName: table(), Item: { ...featureKeys.components(team.id), visible: { enterprise: true } } }),
  );
  expect(await quoteClaimsPlatformSend(identity, claimId, {})).toMatchObject({
    item_count: 2,
    credits: 0,
    credit_cost_per_item: 0,
    enterprise: true,
  });
  const submission = await submitToClaimsPlatform(identity, claimId, {});
  expect(submission).toMatchObject({ status: 'processing', credits_charged: 0, item_count: 2 });
  expect(await sendCharges(member)).toEqual([]);
});

it('falls back to the global bearer token for a team without its own, and to nothing else', async () => {
  const bearer = `cp-global-${randomUUID()}`;
  await fake().registerToken(bearer);
  const member = newTeamMember({ current_team_token: undefined });
  const { claimId, identity } = await teamWithItems(member);
  await expect(submitToClaimsPlatform(identity, claimId, {})).rejects.toMatchObject({ code: 'conflict' });
  const config = { ...settings(), CLAIMS_PLATFORM_BEARER_TOKEN: bearer };
  const submission = await submitToClaimsPlatform(identity, claimId, {}, { config });
  expect(submission.status).toBe('processing');
  const [upsert] = await fake().requests({ token: bearer });
  expect(upsert).toMatchObject({ method: 'PUT', decoded_path: `/api/v1/claims/${claimId}` });
});

it('answers a request made while a send is open with that send, and one made after it finished with 400', async () => {
  const token = `cp-open-${randomUUID()}`;
  await fake().registerToken(token);
  const member = newTeamMember({ current_team_token: token });
  const { claimId, identity, items } = await teamWithItems(member);
  // One item's upload is held, so the first send is still going out at the second click.
  const uploads = `/items/${items[0].id}`;
  await fake().hold(uploads, 20_000);
  const first = await submitToClaimsPlatform(identity, claimId, {});
  // The second click of a double click, made while the first send's items are going out.
  const second = await submitToClaimsPlatform(identity, claimId, {});
  expect(second.id).toBe(first.id);
  await fake().release(uploads);
  await eventually(async () => (await getSubmission(first.id))?.status === 'complete', 60_000, 200);
  await expect(submitToClaimsPlatform(identity, claimId, {})).rejects.toMatchObject({
    code: 'invalid_request',
    message: NOTHING_TO_SUBMIT,
  });
  expect((await sendCharges(member)).map((s) => s.amount)).toEqual([2]);
  expect(
    (await fake().requests({ token })).filter((r) => r.method === 'PUT' && /\/items\/[^/]+$/.test(r.decoded_path)),
  ).toHaveLength(2);
});
