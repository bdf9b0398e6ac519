/**
 * The claim-wide jobs of the operations benchmark, on items seeded straight
 * through the stores (setup): exports of a 5,000-item claim (the Excel
 * workbook, then the PDF report), each from the request to the download of
 * the file, and a 500-item send to each platform's fake: the estimation
 * platform (answered by the request) and the claims platform (carried on by the
 * workers until the send is complete).
 */
import { randomUUID } from 'node:crypto';
import { getClaim } from '../../../lib/claims/store';
import { getExport } from '../../../lib/exports/store';
import { getSubmission } from '../../../lib/sends/submission-store';
import type { Api } from '../api';
import { SENDABLE_CLAIM_DETAILS } from '../../support/claim-details';
import { bytes } from '../report';
import { seedClaimItems } from '../shared/claim-items';
import { pollUntil, type Scenario, type ScenarioContext, type ScenarioResult } from './measure';

const EXPORT_ITEMS = 5000;
const EXPORT_ROOMS = 10;
const SEND_ITEMS = 500;
const EXPORT_TIMEOUT_MS = 10 * 60_000;

/** A claim of the signed-in user's team with `items` items (and their photos) in `rooms` rooms. */
async function seededClaim(api: Api, items: number, rooms: number): Promise<string> {
  const created = await api.call('POST', '/api/claims', { claim_number: `OPS-${randomUUID().slice(0, 8)}` });
  await api.call('PATCH', `/api/claims/${created.id}`, SENDABLE_CLAIM_DETAILS);
  const claim = await getClaim(created.id, true);
  if (!claim) throw new Error(`claim ${created.id} was not stored`);
  await seedClaimItems(claim, { rooms, items });
  return claim.id;
}

/** Asks for the export, waits until it is ready (read in the table, not counted), then downloads it as the browser does. */
async function exportAndDownload(api: Api, path: string): Promise<{ fileBytes: number; items: number | null }> {
  const accepted = await api.call('GET', path, undefined, [202]);
  await pollUntil(
    `export ${accepted.export_id}`,
    () => getExport(accepted.export_id, true),
    (record) => {
      if (record.status === 'failed') throw new Error(`export failed: ${record.error}`);
      return record.status === 'ready';
    },
    EXPORT_TIMEOUT_MS,
  );
  const view = await api.call('GET', `/api/exports/${accepted.export_id}`);
  const file = await fetch(view.download_url);
  const body = Buffer.from(await file.arrayBuffer());
  if (file.status !== 200) throw new Error(`export download: ${file.status}`);
  return { fileBytes: body.length, items: view.item_count };
}

export const exportScenario: Scenario = {
  id: 'exports',
  async run(ctx: ScenarioContext) {
    const api = await ctx.signIn();
    const claimId = await seededClaim(api, EXPORT_ITEMS, EXPORT_ROOMS);
    const results: ScenarioResult[] = [];
    for (const [format, path] of [
      ['Excel', `/api/claims/${claimId}/export/excel`],
      ['PDF report', `/api/claims/${claimId}/report.pdf`],
    ] as const) {
      const { result, measurement } = await ctx.measure(() => exportAndDownload(api, path));
      results.push({
        title: `${EXPORT_ITEMS.toLocaleString('en')}-item export, ${format}`,
        unit: 'item',
        units: EXPORT_ITEMS,
        ...measurement,
        notes: [
          `claim of ${EXPORT_ITEMS} items with a 1024 px photo each in ${EXPORT_ROOMS} rooms: request → built by the export worker → export status → download`,
          `${result.items} items, ${bytes(result.fileBytes)} file`,
        ],
      });
    }
    return results;
  },
};

export const sendScenario: Scenario = {
  id: 'send',
  async run(ctx: ScenarioContext) {
    const key = `ops-est-key-${randomUUID()}`;
    ctx.fakes.estimation.registerKey(key);
    const api = await ctx.signIn({ current_team_estimation_intake_key: key });
    const claimId = await seededClaim(api, SEND_ITEMS, 1);
    const { result, measurement } = await ctx.measure(() =>
      api.call('POST', `/api/claims/${claimId}/submit-to-estimation-platform`, {}),
    );
    if (result.items_sent !== SEND_ITEMS) throw new Error(`sent ${result.items_sent} items, not ${SEND_ITEMS}`);
    const requests = ctx.fakes.estimation.requests.filter((r) => r.key === key).length;
    return [
      {
        title: `${SEND_ITEMS}-item send to the estimation platform`,
        unit: 'item',
        units: SEND_ITEMS,
        ...measurement,
        notes: [
          `claim of ${SEND_ITEMS} items with a photo each: POST submit-to-estimation-platform → answered (billing off)`,
          `${result.items_sent} items sent, ${result.photos_included ?? '?'} photos, ${requests} request(s) to the platform`,
        ],
      },
    ];
  },
};

/** Polls the claims platform send in the table (not counted) until it is complete. */
const untilSubmissionComplete = (id: string) =>
  pollUntil(
    `claims platform send ${id}`,
    () => getSubmission(id),
    (submission) => {
      if (submission.status === 'failed') throw new Error(`claims platform send failed: ${submission.error ?? ''}`);
      return submission.status === 'complete';
    },
    EXPORT_TIMEOUT_MS,
  );

export const claimsPlatformSendScenario: Scenario = {
  id: 'claims-send',
  async run(ctx: ScenarioContext) {
    const token = `ops-cp-team-${randomUUID()}`;
    ctx.fakes.claimsPlatform.registerToken(token);
    const api = await ctx.signIn({ current_team_token: token });
    const claimId = await seededClaim(api, SEND_ITEMS, 1);
    const { result, measurement } = await ctx.measure(async () => {
      const accepted = await api.call('POST', `/api/claims/${claimId}/submit-to-claims-platform`, {});
      return untilSubmissionComplete(accepted.id);
    });
    if (result.done_count !== SEND_ITEMS) throw new Error(`sent ${result.done_count} items, not ${SEND_ITEMS}`);
    const requests = ctx.fakes.claimsPlatform.requests.length;
    return [
      {
        title: `${SEND_ITEMS}-item send to the claims platform`,
        unit: 'item',
        units: SEND_ITEMS,
        ...measurement,
        notes: [
          `claim of ${SEND_ITEMS} items with a photo each: POST submit-to-claims-platform → items sent by the workers → complete (billing off)`,
          `${result.done_count} items sent, ${result.failed_count} failed, ${requests} request(s) to the platform`,
        ],
      },
    ];
  },
};
