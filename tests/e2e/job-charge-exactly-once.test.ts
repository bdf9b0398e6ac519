/**
 * A job's up-front charge is made once per run and lands on the job's own
 * team (spec: Limits > Credit prices and charging, rules 3-5; Processing
 * rules 5 and 6). Every assertion reads the fake billing service's ledger.
 *
 *  - A charge whose run never started (the function died between the spend
 *    and the start write) is the charge of the next Process click: the click
 *    starts the run on it instead of spending a second round.
 *  - An administrator processing another team's job charges that team, never
 *    the administrator's own.
 */
import { randomUUID } from 'node:crypto';
import { chargeJobUpFront } from '../../lib/billing/charge-service';
import { getJob } from '../../lib/jobs/job-store';
import { getTeam } from '../../lib/teams/store';
import { Client, jobInStatus } from '../support/api';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { texturedJpeg } from '../support/inventory';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const tag = () => randomUUID().slice(0, 8);

async function fundedTeam(balance: number, overrides: Parameters<typeof newTeamMember>[0] = {}) {
  const member = newTeamMember(overrides);
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, balance);
  return { client, room: await newRoom(client, 'Study'), teamId: member.current_team_id };
}

/** A one-photo job waiting to be processed, its photo answered with one item. */
async function onePhotoJob(client: Client, roomId: string) {
  const name = `charge-once-${tag()}.jpg`;
  await gateway.script(name, [{ items: [modelItem('Desk lamp')] }]);
  const { jobId } = await photoJob(client, roomId, [await texturedJpeg(3)], [name]);
  return jobId;
}

describe('a job is charged once per run, to its own team', () => {
  it('starts the run on a charge whose start never happened, instead of charging a second round', async () => {
    const { client, room, teamId } = await fundedTeam(30);
    const jobId = await onePhotoJob(client, room.id);
    // What a function that died right after the spend leaves behind: round 1 charged, the job not started.
    const job = await getJob(jobId);
    const team = await getTeam(job?.team_id as string);
    const charged = await chargeJobUpFront({
      job: job as NonNullable<typeof job>,
      team: team as NonNullable<typeof team>,
      user: null,
      credits: 1,
    });
    expect(charged).toMatchObject({ charged: true, reference: `job:${jobId}:1` });
    expect((await getJob(jobId))?.status).toBe('awaiting_grouping');

    const processed = await client.post(`/api/jobs/${jobId}/process`);
    expect(processed.status).toBe(200);
    expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });
    expect(await getJob(jobId)).toMatchObject({ billing_rounds: 1, billing_round_started: true });
    expect(await fakeBilling.spends(teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 1, refunded: 0, refunds: [] },
    ]);
    expect(await fakeBilling.balance(teamId)).toBe(29);
  });

  it("charges the job's own team when an administrator processes another team's job", async () => {
    const owner = await fundedTeam(30);
    const jobId = await onePhotoJob(owner.client, owner.room.id);
    const admin = await fundedTeam(50, { user_id: TEST_ADMIN_EXTERNAL_IDS[0], user_name: `Admin ${tag()}` });

    const quote = await admin.client.get(`/api/jobs/${jobId}/quote`);
    expect(quote.status).toBe(200);
    // The balance quoted is the team that pays: the job's.
    expect(quote.body).toMatchObject({ credits: 1, credits_balance: 30 });
    expect((await admin.client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
    expect(await jobInStatus(owner.client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });

    expect(await fakeBilling.spends(owner.teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 1, refunded: 0, refunds: [] },
    ]);
    expect(await fakeBilling.spends(admin.teamId)).toEqual([]);
    expect(await fakeBilling.balance(admin.teamId)).toBe(50);
  });
});
