/**
 * A refund the billing service refuses with 409 (nothing of the spend is left
 * to give back) is a final answer for a job as for a send: it is no longer
 * owed. Here an operator refunds a job's whole spend at the billing service's
 * console while the job's own refund of its unbilled part is still owed (the
 * service's API was down when the job completed); once the API is back, the billing
 * sweep's own schedule asks for that part, meets 409, and the job owes
 * nothing more. Kept owed, the part would be asked for every minute forever.
 */
import { randomUUID } from 'node:crypto';
import { REFUND_PATH } from '../../lib/integrations/billing-contract';
import { Client, eventually, jobInStatus } from '../support/api';
import { getRow } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { texturedJpeg } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';

jest.setTimeout(240_000);

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

it("drops a job's owed refund that the billing service refuses with 409, and the ledger keeps the operator's refund", async () => {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 30);
  const room = await newRoom(client, 'Den');
  const t = randomUUID().slice(0, 8);
  const good = `conflict-good-${t}.jpg`;
  const bad = `conflict-bad-${t}.jpg`;
  await gateway.script(good, [{ items: [modelItem('Bookcase')] }]);
  await gateway.script(bad, [{ items: [], fail: '400' }]);
  const { jobId } = await photoJob(client, room.id, [await texturedJpeg(1), await texturedJpeg(9)], [good, bad]);
  // The billing service is down for this team's refunds: the unbilled credit's refund stays owed at completion.
  await fakeBilling.failNext('500', 1000, teamId, REFUND_PATH);
  expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
  expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });
  const spendReference = `job:${jobId}:1`;
  const owed = await eventually(async () => {
    const row = await getRow(`JOB#${jobId}`, 'JOB');
    return row?.refund_state === 'pending' ? row : null;
  }, 20_000);
  expect(owed.refunds_owed).toEqual([expect.objectContaining({ spend_reference: spendReference, amount: 1 })]);
  // The completion's own ask has met the outage on every attempt (the client tries 3 times): only the sweep asks next.
  await eventually(async () => {
    const refunds = (await fakeBilling.requests(teamId)).filter((c) => c.path === REFUND_PATH);
    return refunds.filter((c) => c.answered === '500').length >= 3;
  }, 30_000);

  // An operator gives the whole spend back at the service's console while its API still fails for the team (the
  // billing sweep, every 15 s, could otherwise ask for the owed part first), then the API is back.
  expect(await fakeBilling.consoleRefund(teamId, spendReference)).toMatchObject({ refunded: true, amount: 2 });
  expect(await fakeBilling.balance(teamId)).toBe(30);
  await fakeBilling.recover(teamId);

  // The billing sweep (the stack's schedule) asks for the owed part, meets 409, and the job owes nothing more.
  const settled = await eventually(
    async () => {
      const row = await getRow(`JOB#${jobId}`, 'JOB');
      return row?.refund_state === 'done' ? row : null;
    },
    180_000,
    2000,
  );
  expect(settled.refunds_owed).toEqual([]);
  expect(await fakeBilling.balance(teamId)).toBe(30);
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: spendReference, amount: 2, refunded: 2, refunds: [spendReference] },
  ]);
});
