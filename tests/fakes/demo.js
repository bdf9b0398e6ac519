/**
 * `npm run fakes`: the fake estimation platform and claims platform on fixed
 * ports, with one key and one token registered, for trying the sends on
 * `npm start` (docs/local-demos.md: Local demo of the sends and the capture source), and the fake capture source
 * with one organisation (its token printed), one team and one assignment of
 * two rooms with a few photos, for connecting and browsing. Ctrl-C stops them.
 */
const sharp = require('sharp');
const { loadTypeScript } = require('../../deploy/manifest');

const ESTIMATION_PORT = Number(process.env.FAKE_ESTIMATION_PORT || 4020);
const CLAIMS_PLATFORM_PORT = Number(process.env.FAKE_CLAIMS_PLATFORM_PORT || 4021);
const CAPTURE_SOURCE_PORT = Number(process.env.FAKE_CAPTURE_SOURCE_PORT || 4022);
const KEY = 'local-estimation-key';
const TOKEN = 'local-team-token';
const CAPTURE_TOKEN = 'local-capture-token';
/** The service's CAPTURE_SOURCE_WEBHOOK_SECRET in the printed npm start line: the fake signs webhooks with it. */
const WEBHOOK_SECRET = 'local-capture-webhook-secret';
const WEBHOOK_EXAMPLE = {
  url: 'http://localhost:3000/api/integrations/capture-source/webhook',
  secret: WEBHOOK_SECRET,
  event: {
    type: 'submission.created',
    org_id: 'org_local',
    data: { assignmentId: 'asg_local', submissionId: 'sub_local_1', mediaIds: ['media_fridge-front', 'media_sofa'] },
  },
};

/** A photo of one colour with its name on it, and its 320 px proxy (its thumbnail too), as base64. */
async function photo(label, background) {
  const text = `<svg width="640" height="480"><text x="32" y="460" font-size="40" fill="white">${label}</text></svg>`;
  const original = await sharp({ create: { width: 640, height: 480, channels: 3, background } })
    .composite([{ input: Buffer.from(text) }])
    .jpeg({ quality: 70 })
    .toBuffer();
  const proxy = await sharp(original).resize(320).jpeg({ quality: 60 }).toBuffer();
  return { bytes_base64: original.toString('base64'), proxy_base64: proxy.toString('base64') };
}

/** One org (token CAPTURE_TOKEN), one team, one assignment of two rooms with a few photos. */
async function seedCaptureSource(captureSource) {
  const org = captureSource.seedOrg({
    org_id: 'org_local',
    name: 'Local Field Services',
    tokens: [CAPTURE_TOKEN],
    teams: [{ id: 'team_local', name: 'North crew' }],
  });
  const assignment = captureSource.seedAssignment({
    org_id: org.org_id,
    team_id: 'team_local',
    id: 'asg_local',
    reference: 'CLM-2026-0001',
    title: '12 Elm Street: water damage',
    locations: [
      { name: 'Kitchen', groups: [{ name: 'Fridge' }, { name: 'Table' }] },
      { name: 'Living room', groups: [{ name: 'Sofa' }] },
    ],
  });
  const [kitchen, living] = assignment.locations;
  const shots = [
    [kitchen, kitchen.groups[0], 'fridge-front', { r: 70, g: 110, b: 160 }],
    [kitchen, kitchen.groups[0], 'fridge-side', { r: 60, g: 100, b: 150 }],
    [kitchen, kitchen.groups[1], 'table', { r: 150, g: 110, b: 60 }],
    [living, living.groups[0], 'sofa', { r: 110, g: 60, b: 90 }],
    [living, null, 'living-room-overview', { r: 80, g: 130, b: 80 }],
  ];
  const items = [];
  for (const [location, group, name, colour] of shots)
    items.push({
      id: `media_${name}`,
      type: 'photo',
      location_id: location.id,
      group_id: group ? group.id : null,
      filename: `${name}.jpg`,
      ...(await photo(name, colour)),
      submitted: true,
      submission_id: 'sub_local_1',
    });
  captureSource.seedMedia(org.org_id, assignment.id, items);
}

async function main() {
  const { startFakeEstimationPlatform } = loadTypeScript('tests/fakes/estimation-platform-server.ts');
  const { startFakeClaimsPlatform } = loadTypeScript('tests/fakes/claims-platform-server.ts');
  const { startFakeCaptureSource } = loadTypeScript('tests/fakes/capture-source-server.ts');
  const estimation = await startFakeEstimationPlatform({ port: ESTIMATION_PORT });
  const claimsPlatform = await startFakeClaimsPlatform({ port: CLAIMS_PLATFORM_PORT });
  const captureSource = await startFakeCaptureSource({ port: CAPTURE_SOURCE_PORT });
  await estimation.registerKey(KEY);
  await claimsPlatform.registerToken(TOKEN);
  await seedCaptureSource(captureSource);
  process.stdout.write(
    [
      `fake estimation platform at ${estimation.url} (key ${KEY}); fake claims platform at ${claimsPlatform.url} (token ${TOKEN})`,
      `fake capture source at ${captureSource.url}: org org_local, token ${CAPTURE_TOKEN} (one team, one assignment of two rooms, five photos)`,
      'start the service against them with:',
      `  ESTIMATION_PLATFORM_BASE_URL=${estimation.url} CLAIMS_PLATFORM_BASE_URL=${claimsPlatform.url} \\`,
      `  CAPTURE_SOURCE_API_BASE_URL=${captureSource.url} CAPTURE_SOURCE_WEBHOOK_SECRET=${WEBHOOK_SECRET} \\`,
      `  LOCAL_AUTH_ESTIMATION_KEY=${KEY} LOCAL_AUTH_TEAM_TOKEN=${TOKEN} PUBLIC_BASE_URL=http://localhost:3000 npm start`,
      `and connect the capture source with the token ${CAPTURE_TOKEN}; browse it directly with`,
      `  curl -H 'Authorization: Bearer ${CAPTURE_TOKEN}' ${captureSource.url}/v1/teams`,
      'import the assignment into a new claim (after connecting; <id> is the connection id):',
      `  curl -X POST -H 'X-Requested-With: curl' -H 'Content-Type: application/json' -d '{"assignment_id":"asg_local","target":{"mode":"new_claim"}}' http://localhost:3000/api/integrations/connections/<id>/import`,
      'or have the fake deliver a signed submission.created webhook, as the capture source would:',
      `  curl -X POST -H 'Content-Type: application/json' -d '${JSON.stringify(WEBHOOK_EXAMPLE)}' ${captureSource.url}/__fake/webhook`,
      `what they received: curl ${estimation.url}/__fake/requests, ${claimsPlatform.url}/__fake/requests and ${captureSource.url}/__fake/requests`,
      '',
    ].join('\n'),
  );
  const stop = async () => {
    await Promise.all([estimation.close(), claimsPlatform.close(), captureSource.close()]);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
