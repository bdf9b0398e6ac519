/**
 * deploy/public-access.js reads a public function's role from its bundle:
 * these cases pin what it takes from the text and what it refuses.
 */
const { bundleFacts, publicAccess } = require('../../../deploy/public-access') as {
  bundleFacts: (bundle: string, sources: Record<string, string>) => Record<string, string[]>;
  publicAccess: (input: Record<string, unknown>) => Record<string, any>;
};

const keys = {
  insuredLink: (id: string) => ({ pk: `INSUREDLINK#${id}`, sk: 'LINK' }),
  idempotency: (key: string) => ({ pk: 'IDEMPOTENCY', sk: key }),
};
const indexes = { claimRooms: (id: string) => ({ index: 'gsi1', pk: `CLAIM#${id}#ROOMS` }) };
const packages = ['@aws-sdk/lib-dynamodb', '@aws-sdk/client-s3'];

const bundle = [
  '// lib/db/keys.ts',
  'var keys = { team: (id) => ({ pk: "TEAM#" + id }) };',
  '// lib/insured/store.ts',
  'await db().send(new import_lib_dynamodb.GetCommand({ Key: keys.insuredLink(id) }));',
  'await db().send(new import_lib_dynamodb.QueryCommand(query(indexes.claimRooms(claimId))));',
  "const heartbeat = { pk: 'WORKER', sk: 'HEARTBEAT' };",
  'await s3().send(new import_client_s3.PutObjectCommand({ Key: key }));',
  "await dispatch('photos', message);",
].join('\n');
const sources = {
  'lib/db/keys.ts': 'export const keys = { team: (id) => ({ pk: "TEAM#" + id }) };',
  'lib/insured/file-service.ts': `const folder = \`\${blobKeys.claimPrefix(link.team_id, link.claim_id)}insured/\${link.id}/\`;`,
};

describe('public function access', () => {
  it('takes the partitions, indexes, objects and queues its code names, never the key builders module', () => {
    const facts = bundleFacts(bundle, sources);
    const access = publicAccess({ handler: 'api/x', facts, packages, keys, indexes });
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
    const access = publicAccess({ handler: 'api/x', facts, packages: ['@aws-sdk/s3-presigned-post'], keys, indexes });
    expect(access.objects.actions).toEqual(['s3:PutObject']);
  });

  it("moves the teams/ objects of a function that asks for a team's S3 client to the team-objects role", () => {
    const teamSources = {
      ...sources,
      'lib/settings/x.ts': "const file = blobKeys.teamSettings(teamId, 'prompt_settings.json');",
    };
    const facts = bundleFacts(`${bundle}\nconst client = await s3ForTeam2(link.team_id);`, teamSources);
    const access = publicAccess({ handler: 'api/x', facts, packages, keys, indexes });
    expect(access.teamObjects).toEqual({ actions: ['s3:PutObject'], patterns: ['teams/*/claims/*/insured/*'] });
    // What lies outside teams/ stays with the function's own role.
    expect(access.objects).toEqual({ actions: ['s3:PutObject'], patterns: ['team_settings/*'] });
    const listing = bundleFacts(
      `${bundle}\nawait s3ForTeam(t);\nawait c.send(new import_client_s3.ListObjectsV2Command({}));`,
      sources,
    );
    expect(() => publicAccess({ handler: 'api/z', facts: listing, packages, keys, indexes })).toThrow(
      /grants no listing/,
    );
  });

  it('refuses a function that calls S3 without building a key, or names a key builder that does not exist', () => {
    const noKeys = bundleFacts(bundle, {});
    expect(() => publicAccess({ handler: 'api/x', facts: noKeys, packages, keys, indexes })).toThrow(/builds no key/);
    const unknown = bundleFacts('await x(keys.nothing(id));', {});
    expect(() => publicAccess({ handler: 'api/y', facts: unknown, packages, keys, indexes })).toThrow(/keys.nothing/);
  });
});
