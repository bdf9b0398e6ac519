/**
 * deploy/iam.js: the team-objects role. A public function whose code asks
 * for a team's S3 client reaches teams/… objects only through that role,
 * assumed with one `team` session tag; its own role keeps no teams/… object.
 * The packaged template is checked the same way in
 * tests/packaging/deployment-checks.ts (slow); this builds the roles directly.
 */
const { roles, TEAM_OBJECTS_ROLE } = require('../../../deploy/iam') as {
  roles: (input: Record<string, unknown>) => Record<string, any>;
  TEAM_OBJECTS_ROLE: string;
};
const { bundleFacts: factsOf, publicAccess: accessOf } = require('../../../deploy/public-access') as {
  bundleFacts: (bundle: string, sources: Record<string, string>) => Record<string, unknown>;
  publicAccess: (input: Record<string, unknown>) => Record<string, any>;
};

const SERVICE = 'contents-inventory';
const STAGE = 'ci';
const TEAM_PREFIX = `\${MediaBucket.Arn}/teams/\${!aws:PrincipalTag/team}/`;
const homeownerTableKeys = { insuredKeys: { insuredLink: (id: string) => ({ pk: `INSUREDLINK#${id}`, sk: 'LINK' }) } };
const sdkPackages = ['@aws-sdk/lib-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-sts'];
const homeownerSources = {
  'lib/insured/file-service.ts': `const folder = \`\${blobKeys.claimPrefix(link.team_id, link.claim_id)}insured/\${link.id}/\`;`,
};

/** A public function's profile, its access read from a bundle the way the manifest does. */
function publicProfile(name: string, bundle: string, sources: Record<string, string>) {
  const role = `Public${name[0].toUpperCase()}${name.slice(1)}Role`;
  const access = accessOf({
    handler: `api/${name}`,
    facts: factsOf(bundle, sources),
    packages: sdkPackages,
    tableKeys: homeownerTableKeys,
  });
  return { role, readsSecrets: false, packages: sdkPackages, kind: 'http', layers: [], access };
}

const homeownerBundle = (commands: string) =>
  [
    'await db().send(new import_lib_dynamodb.GetCommand({ Key: insuredKeys.insuredLink(id) }));',
    'const client = await s3ForTeam(link.team_id);',
    commands,
  ].join('\n');

const profiles = {
  insuredUploadInit: publicProfile(
    'insuredUploadInit',
    homeownerBundle('await client.send(new import_client_s3.CreateMultipartUploadCommand({ Key: key }));'),
    homeownerSources,
  ),
  insuredAddRoomFile: publicProfile(
    'insuredAddRoomFile',
    homeownerBundle(
      'const post = await (0, import_s3_presigned_post.createPresignedPost)(client, { Key: key });\n' +
        'await client.send(new import_client_s3.HeadObjectCommand({ Key: key }));',
    ),
    homeownerSources,
  ),
  // A capability URL that signs with its own role: untouched by the team-objects role.
  getPhoto: publicProfile('getPhoto', 'await s3().send(new import_client_s3.GetObjectCommand({ Key: key }));', {
    'lib/photos/x.ts': `const k = \`\${blobKeys.jobPrefix(t, c, j)}photos/\${name}\`;`,
  }),
};

const built = () => roles({ service: SERVICE, stage: STAGE, profiles, secretNames: [], scheduleFailuresQueue: 'Q' });
const statementsOf = (role: any): any[] =>
  (role.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
const mentionsBucket = (resource: unknown) => JSON.stringify(resource).includes('MediaBucket');
const TAG_CONDITION = {
  StringLike: { 'aws:RequestTag/team': '?*' },
  'ForAllValues:StringEquals': { 'aws:TagKeys': ['team'] },
};

describe('the team-objects role', () => {
  it("reaches objects under teams/<the session's team tag>/ only, with the actions its users need, and lists nothing", () => {
    const role = built()[TEAM_OBJECTS_ROLE];
    expect(role.Properties.RoleName).toBe(`${SERVICE}-${STAGE}-team-objects`);
    const statements = statementsOf(role);
    const resources = statements.flatMap((s) => list(s.Resource)).map((r: any) => r['Fn::Sub']);
    expect(resources).toEqual([`${TEAM_PREFIX}claims/*/insured/*`]);
    // HeadObject is s3:GetObject; a multipart upload and a presigned POST are s3:PutObject.
    expect(statements.flatMap((s) => list(s.Action)).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
  });

  it('trusts only the roles of the functions that ask for a team client, with exactly one team session tag', () => {
    const trust = built()[TEAM_OBJECTS_ROLE].Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([
      {
        Effect: 'Allow',
        Principal: {
          AWS: [
            { 'Fn::GetAtt': ['PublicInsuredAddRoomFileRole', 'Arn'] },
            { 'Fn::GetAtt': ['PublicInsuredUploadInitRole', 'Arn'] },
          ],
        },
        Action: ['sts:AssumeRole', 'sts:TagSession'],
        Condition: TAG_CONDITION,
      },
    ]);
  });

  it("leaves the homeowner functions' own roles no object of the bucket, only assuming the team-objects role with the tag", () => {
    const all = built();
    for (const name of ['insuredUploadInit', 'insuredAddRoomFile']) {
      const statements = statementsOf(all[profiles[name as keyof typeof profiles].role]);
      expect([name, statements.filter((s) => list(s.Resource).some(mentionsBucket))]).toEqual([name, []]);
      expect(statements.filter((s) => list(s.Action).some((a: string) => a.startsWith('sts:')))).toEqual([
        {
          Effect: 'Allow',
          Action: ['sts:AssumeRole', 'sts:TagSession'],
          Resource: {
            'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${SERVICE}-${STAGE}-team-objects`,
          },
          Condition: TAG_CONDITION,
        },
      ]);
    }
  });

  it('keeps the object access of a public function that signs with its own role, which cannot assume the team role', () => {
    const all = built();
    const statements = statementsOf(all.PublicGetPhotoRole);
    expect(statements.filter((s) => list(s.Resource).some(mentionsBucket))).toHaveLength(1);
    expect(statements.some((s) => list(s.Action).includes('sts:AssumeRole'))).toBe(false);
  });

  it('is not declared when no function asks for a team client', () => {
    const { getPhoto } = profiles;
    const only = roles({
      service: SERVICE,
      stage: STAGE,
      profiles: { getPhoto },
      secretNames: [],
      scheduleFailuresQueue: 'Q',
    });
    expect(only[TEAM_OBJECTS_ROLE]).toBeUndefined();
  });
});
