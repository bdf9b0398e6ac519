/**
 * Team scoping on every id-addressed route, generated from the route table:
 * each signed-in route with a path parameter naming a claim, room, job, upload,
 * activity entry... is called with another team's token (and a valid body, built
 * from team A's real ids) and must answer 404 (403 on GET /api/claims/{id}, as
 * the spec says) and change nothing of the owner's rows.
 *
 * A new id-addressed route is called here without anyone listing it; if its
 * id kind has no fixture or its body no sample, the coverage tests fail.
 * Capability routes (the uuid is the credential) and admin routes (not team
 * scoped; another team's user is refused with 403 before any id is read) are
 * outside this rule.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { routeTable } from '../../lib/api/route-table';
import type { RouteContract } from '../../lib/http/route';
import { Client, eventually, request } from '../support/api';
import { doc, getRow, table } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeCaptureSource } from '../support/fake-capture-source';
import { jobWithItems } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob, smallPng, type TestRoom } from '../support/uploads';

type IdKind =
  | 'claim'
  | 'room'
  | 'job'
  | 'upload'
  | 'activity'
  | 'item'
  | 'itemPhoto'
  | 'export'
  | 'importBatch'
  | 'insuredLink'
  | 'connection'
  | 'captureTeam'
  | 'captureAssignment'
  | 'trainingMission';

interface Fixtures {
  teamId: string;
  room: TestRoom;
  jobId: string;
  photoIds: string[];
  uploadId: string;
  activityId: string;
  /** A completed photo job's items (two) and the first one's photo. */
  itemsJobId: string;
  itemIds: string[];
  itemPhotoId: string;
  exportId: string;
  /** A contents-list import waiting for its file, and the job that will read it. */
  importBatchId: string;
  importReaderId: string;
  /** A homeowner invitation of the claim. */
  insuredLinkId: string;
  /** The team's capture source connection, and a team and assignment it can browse. */
  connectionId: string;
  captureOrgId: string;
  captureTeamId: string;
  captureAssignmentId: string;
}

const label = (r: RouteContract) => `${r.method} ${r.path}`;
const placeholders = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** Signed-in routes addressed by an id: these must be team scoped. */
const idRoutes = routeTable.filter((r) => (r.auth === 'user' || r.auth === 'actor') && placeholders(r.path).length > 0);

/** The path segment before a placeholder names what the id is; `<kind>_id` parameters name it themselves. */
const KIND_BY_SEGMENT: Record<string, IdKind> = {
  claims: 'claim',
  rooms: 'room',
  jobs: 'job',
  'upload-photos': 'job',
  inventory: 'job',
  uploads: 'upload',
  activity: 'activity',
  connections: 'connection',
};
const KIND_BY_PARAM: Record<string, IdKind> = {
  claim_id: 'claim',
  room_id: 'room',
  job_id: 'job',
  upload_id: 'upload',
  log_id: 'activity',
  item_id: 'item',
  photo_id: 'itemPhoto',
  export_id: 'export',
  batch_id: 'importBatch',
  link_id: 'insuredLink',
  tid: 'captureTeam',
  aid: 'captureAssignment',
  key: 'trainingMission',
};

function idKind(route: RouteContract, param: string): IdKind | undefined {
  if (KIND_BY_PARAM[param]) return KIND_BY_PARAM[param];
  const segments = route.path.split('/');
  const at = segments.indexOf(`{${param}}`);
  return KIND_BY_SEGMENT[segments[at - 1]];
}

function idOf(kind: IdKind, fx: Fixtures): string {
  switch (kind) {
    case 'claim':
      return fx.room.claim_id;
    case 'room':
      return fx.room.id;
    case 'job':
      return fx.jobId;
    case 'upload':
      return fx.uploadId;
    case 'activity':
      return fx.activityId;
    case 'item':
      return fx.itemIds[0];
    case 'itemPhoto':
      return fx.itemPhotoId;
    case 'export':
      return fx.exportId;
    case 'importBatch':
      return fx.importBatchId;
    case 'insuredLink':
      return fx.insuredLinkId;
    case 'connection':
      return fx.connectionId;
    case 'captureTeam':
      return fx.captureTeamId;
    case 'captureAssignment':
      return fx.captureAssignmentId;
    case 'trainingMission':
      // Missions are the same for everyone; another team's user has training off (the default): 404.
      return 'rooms';
  }
}

/** A valid body per route that takes one, aimed at team A's own rows. */
const BODY_SAMPLES: Record<string, (fx: Fixtures) => unknown> = {
  patchClaim: () => ({ claim_number: 'TAKEN-OVER' }),
  createRoom: () => ({ name: 'Intruder room' }),
  renameRoom: () => ({ name: 'Renamed by another team' }),
  uploadPartUrls: () => ({ parts: [0] }),
  appendPhotos: () => ({ files: [{ filename: 'extra.png', size: 100 }] }),
  confirmPhotos: () => ({ indices: [0] }),
  regroupStagedPhotos: (fx) => ({ groups: [[fx.photoIds[0], fx.photoIds[1]]] }),
  deleteStagedPhotos: (fx) => ({ ids: [fx.photoIds[0]] }),
  restoreStagedPhotos: (fx) => ({ ids: [fx.photoIds[0]] }),
  segmentStagedPhoto: (fx) => ({
    photo_id: fx.photoIds[0],
    items: [{ name: 'Lamp', boxes: [{ x: 0.1, y: 0.1, width: 0.5, height: 0.5 }] }],
  }),
  clearStagedPhotoSegments: (fx) => ({ photo_id: fx.photoIds[0] }),
  setStagedGroupDetails: (fx) => ({ ids: [fx.photoIds[0]], name: 'Renamed item', quantity: 2 }),
  updateInventoryItem: () => ({ name: 'Taken over', quantity: 3 }),
  approveInventoryItem: (fx) => ({ item_id: fx.itemIds[0], approved: true }),
  bulkUpdateInventory: (fx) => ({ item_ids: fx.itemIds, patch: { condition: 'poor' } }),
  addInventoryItem: () => ({ name: 'Planted item', insert_after_item_number: 0 }),
  replaceItemPhoto: () => ({ filename: 'swap.jpg', size: 1000 }),
  attachItemPhoto: () => ({ filename: 'extra.jpg', size: 1000 }),
  updateItemPhoto: () => ({ is_primary: true, ordering: 0 }),
  moveItemPhoto: (fx) => ({ target_item_id: fx.itemIds[1] }),
  importContentsList: () => ({ files: [{ filename: 'planted.pdf', size: 100 }] }),
  confirmImport: () => ({}),
  submitToEstimationPlatform: () => ({}),
  claimsPlatformQuote: () => ({}),
  submitToClaimsPlatform: () => ({}),
  inviteInsured: () => ({ email: 'intruder@example.test' }),
  submitTrainingQuiz: () => ({ answers: { 'rooms-1': 1 } }),
  importFromCaptureSource: (fx) => ({ assignment_id: fx.captureAssignmentId, target: { mode: 'new_claim' } }),
};

/** What another team gets: 404 everywhere, but 403 on GET /api/claims/{id} (spec: Errors). */
const expectedStatus = (route: RouteContract) =>
  route.method === 'GET' && route.path === '/api/claims/{id}' ? 403 : 404;

const capture = fakeCaptureSource(process.env.TEST_FAKE_CAPTURE_SOURCE_URL as string);

let alice: Client;
let mallory: Client;
let fx: Fixtures;

async function queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, any> | undefined;
  do {
    const page = await doc.send(new QueryCommand({ TableName: table(), ...input, ExclusiveStartKey }));
    out.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/** Every row of team A's fixtures and every row listed under them, in a stable order. */
async function ownerRows(): Promise<Record<string, any>[]> {
  const partitions = [
    `CLAIM#${fx.room.claim_id}`,
    `ROOM#${fx.room.id}`,
    `JOB#${fx.jobId}`,
    `UPLOAD#${fx.uploadId}`,
    `ACTIVITY#${fx.activityId}`,
    `JOBLOG#${fx.jobId}`,
    `TEAM#${fx.teamId}`,
    `JOB#${fx.itemsJobId}`,
    ...fx.itemIds.map((id) => `ITEM#${id}`),
    `EXPORT#${fx.exportId}`,
    `IMPORT#${fx.importBatchId}`,
    `JOB#${fx.importReaderId}`,
    `INSUREDLINK#${fx.insuredLinkId}`,
    `CONNECTION#${fx.connectionId}`,
    `TEAMCONN#${fx.teamId}#capture_source`,
    `CAPTUREORG#${fx.captureOrgId}`,
  ];
  const listings: [string, string][] = [
    ['gsi1', `TEAM#${fx.teamId}#CLAIMS`],
    ['gsi1', `CLAIM#${fx.room.claim_id}#ROOMS`],
    ['gsi1', `CLAIM#${fx.room.claim_id}#IMPORTS`],
    ['gsi1', `CLAIM#${fx.room.claim_id}#INSUREDLINKS`],
    ['gsi1', `ROOM#${fx.room.id}#JOBS`],
    ['gsi1', `TEAM#${fx.teamId}#ACTIVITY`],
    ['gsi1', `JOB#${fx.jobId}#ITEMS`],
    ['gsi1', `JOB#${fx.itemsJobId}#ITEMS`],
    ['gsi2', `TEAM#${fx.teamId}#JOBS`],
    ['gsi2', `ROOM#${fx.room.id}#ITEMS`],
  ];
  const rows = [
    ...(
      await Promise.all(
        partitions.map((pk) =>
          queryAll({
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
            ConsistentRead: true,
          }),
        ),
      )
    ).flat(),
    ...(
      await Promise.all(
        listings.map(([index, pk]) =>
          queryAll({
            IndexName: index,
            KeyConditionExpression: `${index}pk = :pk`,
            ExpressionAttributeValues: { ':pk': pk },
          }),
        ),
      )
    ).flat(),
  ];
  // A completed job stays on the pending-billing index (archpk/archsk) until the billing sweep takes it off,
  // whenever its schedule runs: that is no change of another team's making, so it is left out.
  const withoutBillingListing = ({ archpk, archsk, ...row }: Record<string, any>) =>
    archpk === 'BILLING#PENDING' ? row : { ...row, ...(archpk === undefined ? {} : { archpk, archsk }) };
  return rows
    .map(withoutBillingListing)
    .map((r) => JSON.stringify(r, Object.keys(r).sort()))
    .sort()
    .map((r) => JSON.parse(r));
}

beforeAll(async () => {
  const owner = newTeamMember();
  alice = await Client.signIn(owner);
  mallory = await Client.signIn(newTeamMember());
  await fakeBilling.setBalance(owner.current_team_id, 100);
  const room = await newRoom(alice, 'Study');
  const items = await jobWithItems(alice, room.id, [['Desk', 'Chair']]);
  const exported = await alice.get(`/api/inventory/${items.jobId}/export/csv`);
  expect(exported.status).toBe(202);
  // Let the export finish first, so its row holds still while the routes are called.
  await eventually(async () => (await alice.get(`/api/exports/${exported.body.export_id}`)).body.status === 'ready');
  const { jobId } = await photoJob(alice, room.id, [await smallPng(1), await smallPng(2)]);
  // The re-encode worker updates the staged photos after confirm: wait until it is done, so the rows hold still.
  await eventually(async () => {
    const listed = await alice.get(`/api/jobs/${jobId}/staged-photos`);
    const rows = await Promise.all(
      listed.body.map((p: any) => getRow(`JOB#${jobId}`, `PHOTO#${String(p.index).padStart(6, '0')}`)),
    );
    return rows.length === 2 && rows.every((r) => r?.normalized === true);
  }, 60_000);
  const photoIds = (await alice.get(`/api/jobs/${jobId}/staged-photos`)).body.map((p: any) => p.id as string);
  const init = await alice.post('/api/uploads/init', {
    kind: 'video',
    filename: 'walk.mp4',
    room_id: room.id,
    total_size: 1000,
  });
  expect(init.status).toBe(201);
  expect((await alice.patch(`/api/claims/${room.claim_id}`, { insured_name: 'Pat Owner' })).status).toBe(200);
  const imported = await alice.post(`/api/claims/${room.claim_id}/import-contents-list`, {
    files: [{ filename: 'vendor.pdf', size: 5000 }],
  });
  expect(imported.status).toBe(201);
  const invited = await alice.post(`/api/claims/${room.claim_id}/insured-links`, { email: 'owner-home@example.test' });
  expect(invited.status).toBe(201);
  const org = await capture.seedOrg({ teams: [{ name: 'Crew' }] });
  const assignment = await capture.seedAssignment({
    org_id: org.org_id,
    team_id: org.teams[0].id,
    title: 'Site visit',
    locations: [{ name: 'Study' }],
  });
  const connected = await alice.post('/api/integrations/capture-source/connect', { api_token: org.tokens[0] });
  expect(connected.status).toBe(200);
  const feed = (await alice.get('/api/activity')).body.items as any[];
  const activity = feed.find((e) => e.action_type === 'update_claim' && e.entity_id === room.claim_id) ?? feed[0];
  fx = {
    teamId: room.team_id,
    room,
    jobId,
    photoIds,
    uploadId: init.body.upload_id,
    activityId: activity.id,
    itemsJobId: items.jobId,
    itemIds: items.items.map((i) => i.id),
    itemPhotoId: items.items[0].photos[0].id,
    exportId: exported.body.export_id,
    importBatchId: imported.body.id,
    importReaderId: imported.body.read_job_id,
    insuredLinkId: invited.body.link.id,
    connectionId: connected.body.id,
    captureOrgId: org.org_id,
    captureTeamId: org.teams[0].id,
    captureAssignmentId: assignment.id,
  };
}, 120_000);

describe('cross-team coverage', () => {
  it('finds the id-addressed routes in the route table', () => {
    expect(idRoutes.length).toBeGreaterThan(20);
    expect(idRoutes.map(label)).toEqual(
      expect.arrayContaining([
        'GET /api/claims/{id}',
        'PUT /api/rooms/{room_id}',
        'POST /api/jobs/{id}/process',
        'GET /api/uploads/{id}',
        'POST /api/activity/{log_id}/restore',
        'PUT /api/inventory/item/{item_id}/photos/{photo_id}/move',
        'GET /api/exports/{export_id}',
      ]),
    );
  });

  it('knows the kind of every id parameter', () => {
    const unknown = idRoutes.flatMap((r) =>
      placeholders(r.path)
        .filter((p) => !idKind(r, p))
        .map((p) => `${label(r)}: {${p}}`),
    );
    expect(unknown).toEqual([]);
  });

  it('has a valid sample body for every id-addressed route that takes one, and no stale samples', () => {
    const withBody = idRoutes.filter((r) => r.body);
    expect(withBody.filter((r) => !BODY_SAMPLES[r.name]).map(label)).toEqual([]);
    const invalid = withBody.filter((r) => !r.body!.safeParse(BODY_SAMPLES[r.name](fx)).success).map(label);
    expect(invalid).toEqual([]);
    expect(Object.keys(BODY_SAMPLES).filter((name) => !withBody.some((r) => r.name === name))).toEqual([]);
  });
});

describe("another team's token on an id-addressed route", () => {
  // Side by side: a request that changed an owner's row would show in its own case's before and after (and maybe in
  // another's), so each route is still checked.
  it.concurrent.each(idRoutes.map((r) => [label(r), r] as const))(
    '%s: refused, and nothing of the owner changes',
    async (_label, route) => {
      let path = route.path;
      for (const param of placeholders(route.path)) path = path.replace(`{${param}}`, idOf(idKind(route, param)!, fx));
      const before = await ownerRows();
      const res = await request(route.method, path, {
        token: mallory.token,
        body: route.body ? BODY_SAMPLES[route.name](fx) : undefined,
      });
      expect({ status: res.status, body: res.body }).toEqual({
        status: expectedStatus(route),
        body: { detail: expect.any(String) },
      });
      expect(await ownerRows()).toEqual(before);
    },
  );

  it('left the owner able to use every fixture', async () => {
    expect((await alice.get(`/api/claims/${fx.room.claim_id}`)).body).toMatchObject({ insured_name: 'Pat Owner' });
    expect((await alice.get(`/api/rooms/${fx.room.id}`)).body).toMatchObject({ name: 'Study' });
    expect((await alice.get(`/api/jobs/${fx.jobId}`)).body).toMatchObject({ status: 'awaiting_grouping' });
    expect((await alice.get(`/api/uploads/${fx.uploadId}`)).status).toBe(200);
    expect((await alice.get(`/api/integrations/imports/${fx.importBatchId}`)).body).toMatchObject({
      status: 'awaiting_upload',
      total: 1,
    });
    const connection = `/api/integrations/connections/${fx.connectionId}`;
    expect(
      (await alice.get(`${connection}/teams/${fx.captureTeamId}/assignments/${fx.captureAssignmentId}/tree`)).status,
    ).toBe(200);
    expect((await alice.get('/api/integrations/connections')).body.connections).toHaveLength(1);
  });
});
