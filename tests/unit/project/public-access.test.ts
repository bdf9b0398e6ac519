/**
 * deploy/public-access.js reads a public function's role from its bundle:
 * these cases pin what it takes from the text and what it refuses.
 */
const { bundleFacts, isTableKeyModule, publicAccess } = require('../../../deploy/public-access') as {
  bundleFacts: (bundle: string, sources: Record<string, string>) => Record<string, string[]>;
  isTableKeyModule: (file: string) => boolean;
  publicAccess: (input: Record<string, unknown>) => Record<string, any>;
};

/** What the table key modules export, by name: lib/db/keys.ts's `keys` and the domains' own. */
const tableKeys = {
  keys: { idempotency: (key: string) => ({ pk: 'IDEMPOTENCY', sk: key }) },
  insuredKeys: { insuredLink: (id: string) => ({ pk: `INSUREDLINK#${id}`, sk: 'LINK' }) },
  roomIndexes: { claimRooms: (id: string) => ({ index: 'gsi1', pk: `CLAIM#${id}#ROOMS` }) },
};
const packages = ['@aws-sdk/lib-dynamodb', '@aws-sdk/client-s3'];

const bundle = [
  '// lib/db/keys.ts',
  'var keys = { rateWindow: (s, k, w) => ({ pk: "RATE#" + s }) };',
  '// lib/teams/keys.ts',
  'var teamKeys = { team: (id) => ({ pk: "TEAM#" + id }) };',
  '// lib/pipelines/pdf/template/template-keys.ts',
  'var templateKeys = { pdfTemplate: (w, h, hash) => ({ pk: "PDFTEMPLATES#" + w + "x" + h }) };',
  '// lib/insured/store.ts',
  'await db().send(new import_lib_dynamodb.GetCommand({ Key: insuredKeys2.insuredLink(id) }));',
  'await db().send(new import_lib_dynamodb.QueryCommand(query(roomIndexes.claimRooms(claimId))));',
  'const parts = photoKeys.map((key) => ({ Key: key }));',
  "const heartbeat = { pk: 'WORKER', sk: 'HEARTBEAT' };",
  'await s3().send(new import_client_s3.PutObjectCommand({ Key: key }));',
  "await dispatch('photos', message);",
].join('\n');
const sources = {
  'lib/db/keys.ts': 'export const keys = { rateWindow: (s, k, w) => ({ pk: "RATE#" + s }) };',
  'lib/teams/keys.ts': 'export const teamKeys = { team: (id) => ({ pk: "TEAM#" + id }) };',
  'lib/insured/file-service.ts': `const folder = \`\${blobKeys.claimPrefix(link.team_id, link.claim_id)}insured/\${link.id}/\`;`,
};

describe('public function access', () => {
  it('takes the partitions, indexes, objects and queues its code names, never the key builder modules', () => {
    const facts = bundleFacts(bundle, sources);
    const access = publicAccess({ handler: 'api/x', facts, packages, tableKeys });
    expect(access.table.partitions).toEqual(['INSUREDLINK#*', 'WORKER']);
    expect(access.table.actions).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    expect(access.indexes).toEqual(['gsi1']);
    expect(access.objects).toEqual({ actions: ['s3:PutObject'], patterns: ['teams/*/claims/*/insured/*'] });
    expect(access.queues).toEqual(['photos']);
  });

  it('counts a presigned POST as esbuild calls an import, (0, import_x.createPresignedPost)(…)', () => {
    const facts = bundleFacts(
      'const post = await (0, import_s3_presigned_post.createPresignedPost)(client, {});',
      sources,
    );
    const access = publicAccess({ handler: 'api/x', facts, packages: ['@aws-sdk/s3-presigned-post'], tableKeys });
    expect(access.objects.actions).toEqual(['s3:PutObject']);
  });

  it("moves the teams/ objects of a function that asks for a team's S3 client to the team-objects role", () => {
    const teamSources = {
      ...sources,
      'lib/settings/x.ts': "const file = blobKeys.teamSettings(teamId, 'prompt_settings.json');",
    };
    const facts = bundleFacts(`${bundle}\nconst client = await s3ForTeam2(link.team_id);`, teamSources);
    const access = publicAccess({ handler: 'api/x', facts, packages, tableKeys });
    expect(access.teamObjects).toEqual({ actions: ['s3:PutObject'], patterns: ['teams/*/claims/*/insured/*'] });
    // What lies outside teams/ stays with the function's own role.
    expect(access.objects).toEqual({ actions: ['s3:PutObject'], patterns: ['team_settings/*'] });
    const listing = bundleFacts(
      `${bundle}\nawait s3ForTeam(t);\nawait c.send(new import_client_s3.ListObjectsV2Command({}));`,
      sources,
    );
    expect(() => publicAccess({ handler: 'api/z', facts: listing, packages, tableKeys })).toThrow(/grants no listing/);
  });

  it('refuses a function that calls S3 without building a key, or names a key builder that does not exist', () => {
    const noKeys = bundleFacts(bundle, {});
    expect(() => publicAccess({ handler: 'api/x', facts: noKeys, packages, tableKeys })).toThrow(/builds no key/);
    const unknown = bundleFacts('await x(keys.nothing(id));', {});
    expect(() => publicAccess({ handler: 'api/y', facts: unknown, packages, tableKeys })).toThrow(/keys.nothing/);
    const unknownInDomain = bundleFacts('await x(insuredKeys.nothing(id));', {});
    expect(() => publicAccess({ handler: 'api/y', facts: unknownInDomain, packages, tableKeys })).toThrow(
      /insuredKeys.nothing, which no table key module has/,
    );
  });

  it('knows the table key modules: lib/db/keys.ts and each keys.ts or <concept>-keys.ts, never the bucket keys', () => {
    const files = [
      'lib/db/keys.ts',
      'lib/claims/keys.ts',
      'lib/pipelines/pdf/template/template-keys.ts',
      'lib/blob/keys.ts',
      'lib/claims/store.ts',
      'lib/claims/monkeys.ts',
      'functions/api/keys.ts',
    ];
    expect(files.filter(isTableKeyModule)).toEqual([
      'lib/db/keys.ts',
      'lib/claims/keys.ts',
      'lib/pipelines/pdf/template/template-keys.ts',
    ]);
  });
});
