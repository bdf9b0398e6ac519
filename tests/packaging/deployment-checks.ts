/**
 * Deployment safety of the packaged service, checked on the templates of the
 * one `serverless package` run of packaging.test.ts (packaging is slow).
 *
 * The package is made with distinctive fake secret values and non-default
 * ordinary settings in the packaging machine's environment (PACKAGING_ENV).
 */
import fs from 'node:fs';
import path from 'node:path';
import { filesContaining, type PackageRun, type Template, type TemplateFile } from '../support/packaging';
import { readZipEntry, zipEntries } from '../support/zip-entries';

const FAKE_SECRETS: Record<string, string> = {
  CLAIMS_PLATFORM_JWT_SECRET: 'pkgtest-jwt-secret-3c9f1a7e5b2d4f6a8c0e2b4d',
  CLAIMS_PLATFORM_BEARER_TOKEN: 'pkgtest-bearer-token-71d2e9',
  BILLING_APP_API_KEY: 'pkgtest-billing-key-5a8b3c',
  OPENROUTER_API_KEY: 'pkgtest-openrouter-key-9e4f2a',
  TRANSCRIPTION_API_KEY: 'pkgtest-transcription-key-0b6c1d',
  ESTIMATION_PLATFORM_SSO_SECRET: 'pkgtest-sso-secret-8d2a7f4e1c9b3a5d',
  CAPTURE_SOURCE_WEBHOOK_SECRET: 'pkgtest-capture-hmac-6e3b9a',
  MAIL_API_KEY: 'pkgtest-mail-key-2f7c4e',
  MAIL_WEBHOOK_SIGNING_KEY: 'pkgtest-mail-signing-4a1e8b',
  CHAT_WEBHOOK_URL: 'https://chat.example.test/hooks/pkgtest-chat-7b5d3f',
};

const OPENROUTER_MODEL = 'packaging-test/model-4b1d';

export const PACKAGING_ENV: Record<string, string> = {
  ...FAKE_SECRETS,
  APP_ENV: 'stage',
  OPENROUTER_MODEL,
  MAIL_DOMAIN: 'packaging.example.test',
  MAIL_FROM: 'inventory@packaging.example.test',
};

const STAGE = 'ci';
const SERVICE = 'contents-inventory';
const ROLE_POLICY_LIMIT = 10_240; // IAM: aggregate inline policy size per role
const MANAGED_POLICY_LIMIT = 6_144; // IAM: size of one managed policy

type Resource = Template['Resources'][string] & { DeletionPolicy?: string; UpdateReplacePolicy?: string };

interface Packaged {
  run: PackageRun;
  root: TemplateFile;
  nested: TemplateFile[];
  manifest: Record<string, { handler: string; events?: Record<string, unknown>[] }>;
}

/** Where a value in a nested template comes from: a Ref to one of its parameters is what the root passes in. */
function throughParameters(packaged: Packaged, file: string, value: unknown): unknown {
  const ref = (value as { Ref?: string } | undefined)?.Ref;
  if (!ref || file === packaged.root.file) return value;
  const stack = Object.values(packaged.root.template.Resources).find((r) => {
    const url = (r.Properties?.TemplateURL as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join']?.[1];
    return r.Type === 'AWS::CloudFormation::Stack' && url?.[url.length - 1] === file;
  });
  const passed = (stack?.Properties?.Parameters as Record<string, unknown> | undefined)?.[ref];
  return passed ?? value;
}

const getAttId = (value: unknown): string | undefined => {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | undefined)?.['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return String(getAtt[0]);
  if (typeof getAtt === 'string') return getAtt.split('.')[0];
  return undefined;
};

/**
 * The wildcard rule for IAM resources. Not allowed: "*" as a resource, and a
 * "*" in an ARN's partition, service, region, account or resource name.
 * Allowed, because they only select parts of one named resource:
 *   - the objects of the media bucket:   <MediaBucket.Arn>/* or a key pattern below it
 *   - the indexes of the table:          <Table.Arn>/index/* or index/<name>
 *   - the log streams of a named group:  arn:…:logs:…:log-group:/aws/lambda/<function>:*
 *   - one team's objects (the team-objects role): ${MediaBucket.Arn}/teams/${aws:PrincipalTag/team}/<key pattern>
 */
function wildcardProblem(resource: unknown): string | undefined {
  if (typeof resource === 'string') return resource.includes('*') ? `wildcard resource ${resource}` : undefined;
  const obj = resource as Record<string, unknown>;
  if (getAttId(obj)) return undefined;
  if ('Fn::Join' in obj) {
    const [separator, parts] = obj['Fn::Join'] as [string, unknown[]];
    const base = getAttId(parts[0]);
    const rest = parts.slice(1).join(separator);
    if (base === 'MediaBucket' && /^[\w*/-]+$/.test(rest)) return undefined;
    if (base === 'Table' && /^index\/(\*|\w+)$/.test(rest)) return undefined;
    return `Fn::Join ${JSON.stringify(obj)}`;
  }
  if ('Fn::Sub' in obj) {
    const text = subText(obj);
    if (TEAM_OBJECTS.test(text)) return undefined;
    // Pseudo parameters hold colons themselves; they stand for one fixed partition, region and account.
    const parts = text
      .replace(/\$\{AWS::(Partition|Region|AccountId)\}/g, (_, p: string) => p.toLowerCase())
      .split(':');
    if (parts[0] !== 'arn' || parts.length < 6) return `not an ARN: ${text}`;
    const [, partition, service, region, account] = parts;
    if ([partition, service, region, account].some((p) => p.includes('*'))) return `wildcard in ARN prefix: ${text}`;
    let name = parts.slice(5).join(':');
    if (service === 'logs' && /^log-group:[^*:]+:\*$/.test(name)) name = name.slice(0, -2);
    return name.includes('*') ? `wildcard in resource name: ${text}` : undefined;
  }
  return `unrecognised resource ${JSON.stringify(obj)}`;
}

/** Objects below the session's team tag ("${!" is Fn::Sub's literal "${"). */
const TEAM_OBJECTS_PREFIX = `\${MediaBucket.Arn}/teams/\${!aws:PrincipalTag/team}/`;
const TEAM_OBJECTS = /^\$\{MediaBucket\.Arn\}\/teams\/\$\{!aws:PrincipalTag\/team\}\/[\w*/-]+$/;

/**
 * The template of an Fn::Sub (the framework writes both the string and the [string, variables] form). In the
 * second form an attribute may come in as a variable, `${MediaBucket_Arn}` bound to the bucket's Arn: written
 * back as `${MediaBucket.Arn}` when its binding names that resource.
 */
function subText(value: unknown): string {
  const body = (value as { 'Fn::Sub': unknown })['Fn::Sub'];
  if (!Array.isArray(body)) return String(body);
  const [text, variables] = body as [string, Record<string, unknown> | undefined];
  return String(text).replace(/\$\{(\w+)_Arn\}/g, (whole, name: string) =>
    JSON.stringify(variables?.[`${name}_Arn`] ?? null).includes(name) ? `\${${name}.Arn}` : whole,
  );
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, string | string[]>>;
}

/** Rows of these partitions belong to a team or a user whatever the caller: no public role may name them. */
const SIGNED_IN_PARTITIONS = ['TEAM#', 'TEAMTOKEN#', 'TEAMEXT#', 'USER#', 'USEREXT#', 'USEREMAIL#', 'COMPONENTS'];

/**
 * What a public function's role could reach in another team's data by role alone, statement by statement:
 *  - table rows without a dynamodb:LeadingKeys condition, a condition that lets every key through,
 *    or one that names team or user rows; a Scan of anything;
 *  - media objects of the whole bucket, of all teams (teams/*), of whole claims (teams/*\/claims/*), or of team
 *    settings (team_settings/); listing the bucket without an s3:prefix condition;
 *  - any queue receive or delete.
 */
function publicRoleProblems(role: string, statements: Statement[]): string[] {
  const problems: string[] = [];
  for (const statement of statements) {
    const actions = list(statement.Action);
    for (const resource of list(statement.Resource)) {
      const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
      const base = getAttId(join ? join[1][0] : resource);
      const rest = join ? join[1].slice(1).join(join[0]) : '';
      if (actions.some((a) => a === 'dynamodb:Scan')) problems.push(`${role}: dynamodb:Scan`);
      if (base === 'Table' && !join) {
        const leading = list(statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []);
        if (!leading.length) problems.push(`${role}: table rows without LeadingKeys (${actions.join(',')})`);
        for (const key of leading) {
          if (key === '*' || key.startsWith('*')) problems.push(`${role}: LeadingKeys ${key}`);
          if (SIGNED_IN_PARTITIONS.some((p) => key === `${p}*` || key === p))
            problems.push(`${role}: team or user rows ${key}`);
        }
      }
      if (base === 'MediaBucket' && join) {
        if (['*', 'teams/*', 'teams/*/claims/*'].includes(rest) || rest.startsWith('team_settings'))
          problems.push(`${role}: objects ${rest} (${actions.join(',')})`);
        if (!/^teams\/\*\/claims\/\*\/[a-z_-]+\//.test(rest))
          problems.push(`${role}: objects outside a claim's folder: ${rest}`);
      }
      if (
        base === 'MediaBucket' &&
        !join &&
        actions.includes('s3:ListBucket') &&
        !statement.Condition?.StringLike?.['s3:prefix']
      )
        problems.push(`${role}: lists the whole bucket`);
      if (actions.some((a) => a === 'sqs:ReceiveMessage' || a === 'sqs:DeleteMessage'))
        problems.push(`${role}: consumes a queue`);
    }
  }
  return problems;
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The route contracts, read the way the manifest reads them: which routes are public is their `auth`. */
const routeTable = (): { name: string; auth: string; path: string }[] =>
  require('../../deploy/manifest').loadTypeScript('lib/api/route-table.ts').routeTable;

export function describeDeploymentSafety(get: () => Packaged): void {
  const all = () => [get().root, ...get().nested];
  const resourcesOfType = (type: string) =>
    all().flatMap(({ file, template }) =>
      Object.entries(template.Resources)
        .filter(([, r]) => r.Type === type)
        .map(([id, r]) => ({ file, id, resource: r as Resource })),
    );
  const lambdaByName = () =>
    new Map(
      resourcesOfType('AWS::Lambda::Function').map(
        (f) => [String(f.resource.Properties?.FunctionName).replace(`${SERVICE}-${STAGE}-`, ''), f] as const,
      ),
    );
  const roles = () => resourcesOfType('AWS::IAM::Role');
  const statementsOf = (role: Resource): Statement[] =>
    ((role.Properties?.Policies as { PolicyDocument: { Statement: Statement[] } }[] | undefined) ?? []).flatMap(
      (p) => p.PolicyDocument.Statement,
    );
  const roleOfFunction = (name: string) => {
    const fn = lambdaByName().get(name);
    if (!fn) throw new Error(`no Lambda function for ${name}`);
    return getAttId(throughParameters(get(), fn.file, fn.resource.Properties?.Role));
  };
  const rootResource = (id: string) => get().root.template.Resources[id] as Resource | undefined;

  describe('fault points', () => {
    it('leaves the armed fault points (lib/faults) out of every function, so nothing deployed can end itself', () => {
      const { run } = get();
      const zips = fs.readdirSync(run.packageDir).filter((f) => f.endsWith('.zip'));
      const carrying: string[] = [];
      let bundles = 0;
      for (const file of zips) {
        const zip = fs.readFileSync(path.join(run.packageDir, file));
        // A function's own bundle; a media layer's packages (nodejs/…) are installed from the registry, not built here.
        for (const entry of zipEntries(zip).filter((e) => e.name.endsWith('.js') && !e.name.startsWith('nodejs/'))) {
          bundles++;
          // The armed module's error name; the points themselves stay as empty calls.
          if (readZipEntry(zip, entry).includes('FaultPointInvocationEnded')) carrying.push(`${file}: ${entry.name}`);
        }
      }
      expect(bundles).toBeGreaterThan(100);
      expect(carrying).toEqual([]);
    });
  });

  describe('run ends', () => {
    it('loads what hears a run end (lib/pipelines/run-end-subscribers.ts) in every function that can publish one', () => {
      const { run } = get();
      // A string of the publisher and one of the wiring (a subscriber's name): minifying keeps strings whole.
      const PUBLISHER = 'run end published with no subscriber registered';
      const WIRING = 'usage-counters';
      const missing: string[] = [];
      let publishing = 0;
      for (const file of fs.readdirSync(run.packageDir).filter((f) => f.endsWith('.zip'))) {
        const zip = fs.readFileSync(path.join(run.packageDir, file));
        for (const entry of zipEntries(zip).filter((e) => e.name.endsWith('.js') && !e.name.startsWith('nodejs/'))) {
          const text = readZipEntry(zip, entry).toString();
          if (!text.includes(PUBLISHER)) continue;
          publishing++;
          if (!text.includes(WIRING)) missing.push(`${file}: ${entry.name}`);
        }
      }
      // Tree shaking keeps the publisher only where a run can end: the stage and unit workers and the watchdog at least.
      expect(publishing).toBeGreaterThanOrEqual(3);
      expect(missing).toEqual([]);
    });
  });

  describe('secrets', () => {
    it('writes no secret value into any template, state file or zip', () => {
      const { run } = get();
      const hits = [
        ...filesContaining(run.packageDir, Object.values(FAKE_SECRETS)),
        ...filesContaining(path.join(run.serviceDir, '.serverless'), Object.values(FAKE_SECRETS)),
      ];
      expect(hits).toEqual([]);
    });

    it('gives no function a secret setting, and the functions that read one the SSM parameter path', () => {
      const exposed: string[] = [];
      for (const [name, fn] of lambdaByName()) {
        const variables = ((fn.resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables ?? {}) as Record<string, unknown>;
        for (const secret of Object.keys(FAKE_SECRETS)) if (secret in variables) exposed.push(`${name}: ${secret}`);
      }
      expect(exposed).toEqual([]);
      const variables = (name: string) =>
        (
          lambdaByName().get(name)?.resource.Properties?.Environment as
            | { Variables: Record<string, unknown> }
            | undefined
        )?.Variables ?? {};
      // The unit worker calls the AI gateway with its key; the login secret guards every signed-in route.
      expect(variables('unitWorker').SECRETS_PARAMETER_PATH).toBe(`/${SERVICE}/${STAGE}`);
      expect(variables('getRoom').SECRETS_PARAMETER_PATH).toBe(`/${SERVICE}/${STAGE}`);
    });

    it('gives each function only the settings its code reads', () => {
      const variables = (name: string) =>
        (
          lambdaByName().get(name)?.resource.Properties?.Environment as
            | { Variables: Record<string, unknown> }
            | undefined
        )?.Variables ?? {};
      expect(variables('unitWorker').OPENROUTER_MODEL).toBe(OPENROUTER_MODEL);
      expect(variables('getRoom')).not.toHaveProperty('OPENROUTER_MODEL');
      expect(variables('getRoom')).not.toHaveProperty('MAIL_FROM');
    });
  });

  describe('IAM', () => {
    it('has no provider-wide role: every function runs with its group role', () => {
      expect(all().flatMap(({ template }) => Object.keys(template.Resources))).not.toContain('IamRoleLambdaExecution');
      const expected: Record<string, string> = {
        getRoom: 'HttpApiRole',
        createClaim: 'HttpApiRole',
        stageWorker: 'StagesWorkerRole',
        unitWorker: 'UnitsWorkerRole',
        probeWorker: 'ProbeWorkerRole',
        photoWorker: 'PhotosWorkerRole',
        purgeWorker: 'PurgeWorkerRole',
        watchdog: 'SchedulesRole',
        dailyPurge: 'SchedulesRole',
        uploadSweep: 'SchedulesRole',
        jobStream: 'JobStreamRole',
      };
      for (const [name, role] of Object.entries(expected)) expect([name, roleOfFunction(name)]).toEqual([name, role]);
      const declaredRoles = roles().map((r) => r.id);
      for (const name of Object.keys(get().manifest)) expect(declaredRoles).toContain(roleOfFunction(name));
    });

    it('grants no wildcard action or resource (see wildcardProblem for the rule)', () => {
      const problems: string[] = [];
      for (const type of ['AWS::IAM::Role', 'AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
        for (const { id, resource } of resourcesOfType(type)) {
          const statements =
            type === 'AWS::IAM::Role'
              ? statementsOf(resource)
              : ((resource.Properties?.PolicyDocument as { Statement?: Statement[] } | undefined)?.Statement ?? []);
          for (const statement of statements) {
            for (const action of list(statement.Action))
              if (action.includes('*')) problems.push(`${id}: action ${action}`);
            for (const r of list(statement.Resource)) {
              const problem = wildcardProblem(r);
              if (problem) problems.push(`${id}: ${problem}`);
            }
          }
        }
      }
      expect(roles().length).toBeGreaterThanOrEqual(8);
      expect(problems).toEqual([]);
    });

    it('lets each worker receive from its own queue only, and the units worker change visibility', () => {
      const grants = (role: string, action: string) =>
        statementsOf(rootResource(role) as Resource)
          .filter((s) => list(s.Action).includes(action))
          .flatMap((s) => list(s.Resource).map(getAttId));
      expect(grants('UnitsWorkerRole', 'sqs:ChangeMessageVisibility')).toEqual(['UnitsQueue']);
      for (const [role, queue] of [
        ['StagesWorkerRole', 'StagesQueue'],
        ['UnitsWorkerRole', 'UnitsQueue'],
        ['ProbeWorkerRole', 'ProbeQueue'],
        ['PhotosWorkerRole', 'PhotosQueue'],
        ['PurgeWorkerRole', 'PurgeQueue'],
      ]) {
        for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage'])
          expect([role, action, grants(role, action)]).toEqual([role, action, [queue]]);
      }
      expect(grants('HttpApiRole', 'sqs:ReceiveMessage')).toEqual([]);
      expect(grants('JobStreamRole', 'sqs:SendMessage')).toEqual([]);
      expect(grants('SchedulesRole', 'sqs:SendMessage')).toContain('ScheduleFailuresQueue');
    });

    it('gives every public route (auth none or capability) a role of its own that cannot reach another team by role alone', () => {
      const publicRoutes = routeTable()
        .filter((route) => route.auth === 'none' || route.auth === 'capability')
        .map((route) => route.name);
      // The homeowner link, the webhooks, the certificate check and the capability URLs.
      for (const name of [
        'insuredWizardState',
        'insuredSubmit',
        'insuredUploadInit',
        'insuredMailEvents',
        'captureSourceWebhook',
        'verifyTrainingCertificate',
        'getPhoto',
        'jobVideo',
      ])
        expect(publicRoutes).toContain(name);
      const problems: string[] = [];
      const roleIds = new Set<string>();
      for (const name of publicRoutes) {
        const role = roleOfFunction(name) as string;
        if (role === 'HttpApiRole' || roleIds.has(role)) problems.push(`${name}: shares ${role}`);
        roleIds.add(role);
        problems.push(...publicRoleProblems(role, statementsOf(rootResource(role) as Resource)));
      }
      expect(problems).toEqual([]);
    });

    it('gives the homeowner routes the rows, objects and queues their code uses, and no more', () => {
      const statements = (name: string) => statementsOf(rootResource(roleOfFunction(name) as string) as Resource);
      const leadingKeys = (name: string) =>
        statements(name).flatMap((s) => list(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []));
      const objects = (name: string) =>
        statements(name).flatMap((s) =>
          list(s.Resource)
            .map((r) => (r as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'])
            .filter((j) => j && getAttId(j[1][0]) === 'MediaBucket')
            .map((j) => (j as [string, unknown[]])[1].slice(1).join('/')),
        );
      const queues = (name: string) =>
        statements(name)
          .filter((s) => list(s.Action).includes('sqs:SendMessage'))
          .flatMap((s) => list(s.Resource).map(getAttId));
      expect(leadingKeys('insuredWizardState')).toEqual(
        expect.arrayContaining(['INSUREDTOKEN#*', 'INSUREDLINK#*', 'CLAIM#*']),
      );
      // Its objects are reached through the team-objects role only (next test).
      expect(objects('insuredUploadInit')).toEqual([]);
      // The submit stages the homeowner's files where they lie: it reads and writes no object.
      expect(objects('insuredSubmit')).toEqual([]);
      // A staged homeowner original is served from the claim's homeowner folder until it is re-encoded.
      expect(objects('getPhoto')).toEqual(expect.arrayContaining(['teams/*/claims/*/insured/*']));
      // A round too large for the request (or whose making failed in it) goes to the stage workers.
      expect(queues('insuredSubmit').sort()).toEqual(['PhotosQueue', 'ProbeQueue', 'StagesQueue']);
      expect(queues('insuredWizardState')).toEqual([]);
      expect(objects('verifyTrainingCertificate')).toEqual([]);
      expect(leadingKeys('verifyTrainingCertificate')).toContain('CERTIFICATE#*');
    });

    it("reaches the homeowner link's objects only through the team-objects role, one team per session", () => {
      const homeowner = routeTable()
        .filter((route) => route.path.startsWith('/api/public/insured/{token}'))
        .map((route) => route.name);
      expect(homeowner).toEqual(
        expect.arrayContaining(['insuredUploadInit', 'insuredAddRoomFile', 'insuredFileThumb']),
      );
      const tagCondition = {
        StringLike: { 'aws:RequestTag/team': '?*' },
        'ForAllValues:StringEquals': { 'aws:TagKeys': ['team'] },
      };
      const teamRole = rootResource('TeamObjectsRole') as Resource;
      expect(teamRole?.Type).toBe('AWS::IAM::Role');
      const roleName = `${SERVICE}-${STAGE}-team-objects`;
      expect(teamRole.Properties?.RoleName).toBe(roleName);

      // Every object statement is below the session's team tag; nothing else, no listing.
      const teamStatements = statementsOf(teamRole);
      expect(teamStatements.length).toBeGreaterThan(0);
      for (const statement of teamStatements) {
        expect(list(statement.Action).every((a) => a.startsWith('s3:') && a !== 's3:ListBucket')).toBe(true);
        for (const resource of list(statement.Resource))
          expect(subText(resource).startsWith(TEAM_OBJECTS_PREFIX)).toBe(true);
      }
      expect(teamStatements.flatMap((s) => list(s.Resource)).map(subText)).toContain(
        `${TEAM_OBJECTS_PREFIX}claims/*/insured/*`,
      );

      // Trusted: the homeowner functions' own roles only, with sts:TagSession and exactly one non-empty team tag.
      const trust = (teamRole.Properties as { AssumeRolePolicyDocument: { Statement: Record<string, any>[] } })
        .AssumeRolePolicyDocument.Statement;
      expect(trust).toHaveLength(1);
      const principals = list(trust[0].Principal.AWS).map(getAttId);
      const homeownerRoles = homeowner.map((name) => roleOfFunction(name));
      expect(principals.every((role) => homeownerRoles.includes(role))).toBe(true);
      expect(principals).toContain(roleOfFunction('insuredUploadInit'));
      expect(principals).not.toContain(roleOfFunction('getPhoto'));
      expect(list(trust[0].Action).sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
      expect(trust[0].Condition).toEqual(tagCondition);

      // The homeowner functions' own roles reach no object of the bucket; those that need objects assume the team role.
      const problems: string[] = [];
      for (const name of homeowner) {
        const role = roleOfFunction(name) as string;
        const statements = statementsOf(rootResource(role) as Resource);
        for (const statement of statements)
          if (list(statement.Resource).some((r) => JSON.stringify(r).includes('MediaBucket')))
            problems.push(`${name}: ${role} reaches ${JSON.stringify(statement.Resource)}`);
        const assume = statements.filter((s) => list(s.Action).includes('sts:AssumeRole'));
        if (principals.includes(role)) {
          expect([name, assume.map((s) => [subText(s.Resource), s.Condition])]).toEqual([
            name,
            [[`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${roleName}`, tagCondition]],
          ]);
        } else expect([name, assume]).toEqual([name, []]);
      }
      expect(problems).toEqual([]);

      // The role's ARN reaches the functions that assume it, and no other.
      const roleArnOf = (name: string) => {
        const fn = lambdaByName().get(name);
        const variables = (fn?.resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables;
        const value = variables?.TEAM_OBJECTS_ROLE_ARN;
        return value === undefined ? undefined : getAttId(throughParameters(get(), fn?.file as string, value));
      };
      expect(roleArnOf('insuredUploadInit')).toBe('TeamObjectsRole');
      expect(roleArnOf('insuredFileThumb')).toBe('TeamObjectsRole');
      expect(roleArnOf('insuredWizardState')).toBeUndefined();
      expect(roleArnOf('getRoom')).toBeUndefined();
    });

    it('lets roles read the secret parameters of this stage only, and keeps each role policy within the IAM size limit', () => {
      const ssm = statementsOf(rootResource('HttpApiRole') as Resource).filter((s) =>
        list(s.Action).some((a) => a.startsWith('ssm:')),
      );
      const arns = ssm.flatMap((s) => list(s.Resource)).map(subText);
      expect(arns).toContain(
        `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/${SERVICE}/${STAGE}`,
      );
      expect(arns).toContain(
        `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/${SERVICE}/${STAGE}/CLAIMS_PLATFORM_JWT_SECRET`,
      );
      // About as AWS counts it: no whitespace, real partition/region/account.
      const size = (policy: unknown) =>
        JSON.stringify(policy ?? [])
          .replaceAll(`\${AWS::Partition}`, 'aws')
          .replaceAll(`\${AWS::Region}`, 'ap-southeast-2')
          .replaceAll(`\${AWS::AccountId}`, '123456789012').length;
      for (const { id, resource } of roles())
        expect([id, size(resource.Properties?.Policies) < ROLE_POLICY_LIMIT]).toEqual([id, true]);
      for (const { id, resource } of resourcesOfType('AWS::IAM::ManagedPolicy')) {
        expect([id, size(resource.Properties?.PolicyDocument) < MANAGED_POLICY_LIMIT]).toEqual([id, true]);
      }
    });
  });

  describe('storage safety', () => {
    it('retains the table and the bucket on stack deletion and replacement', () => {
      for (const id of ['Table', 'MediaBucket']) {
        expect([id, rootResource(id)?.DeletionPolicy, rootResource(id)?.UpdateReplacePolicy]).toEqual([
          id,
          'Retain',
          'Retain',
        ]);
      }
    });

    it('keeps point-in-time recovery on the table', () => {
      expect(rootResource('Table')?.Properties?.PointInTimeRecoverySpecification).toEqual({
        PointInTimeRecoveryEnabled: true,
      });
    });

    it('versions the bucket, expires noncurrent versions and still aborts incomplete multipart uploads', () => {
      const props = rootResource('MediaBucket')?.Properties as Record<string, any>;
      expect(props.VersioningConfiguration).toEqual({ Status: 'Enabled' });
      const rules = props.LifecycleConfiguration.Rules as Record<string, any>[];
      expect(
        rules.find((r) => r.NoncurrentVersionExpiration)?.NoncurrentVersionExpiration.NoncurrentDays,
      ).toBeGreaterThan(0);
      expect(rules.find((r) => r.AbortIncompleteMultipartUpload)?.AbortIncompleteMultipartUpload).toEqual({
        DaysAfterInitiation: 1,
      });
    });
  });

  describe('failure visibility', () => {
    it('alarms on every dead-letter queue as soon as one message is visible', () => {
      const queues = get().root.template.Resources;
      const deadLetterQueues = new Set<string>(['ScheduleFailuresQueue']);
      for (const r of Object.values(queues)) {
        const target = (r.Properties?.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined)
          ?.deadLetterTargetArn;
        if (r.Type === 'AWS::SQS::Queue' && target) deadLetterQueues.add(getAttId(target) as string);
      }
      // exports, photos, probe, purge, stages, units dead-letter queues, and the schedules' failures queue.
      expect(deadLetterQueues.size).toBe(7);
      const alarmed = new Map<string, Record<string, unknown>>();
      for (const { resource } of resourcesOfType('AWS::CloudWatch::Alarm')) {
        const props = resource.Properties as Record<string, any>;
        if (props.MetricName !== 'ApproximateNumberOfMessagesVisible') continue;
        alarmed.set(
          getAttId(props.Dimensions.find((d: { Name: string }) => d.Name === 'QueueName')?.Value) as string,
          props,
        );
      }
      for (const queue of deadLetterQueues) {
        const props = alarmed.get(queue);
        expect([queue, props?.Namespace, props?.ComparisonOperator, props?.Threshold]).toEqual([
          queue,
          'AWS/SQS',
          'GreaterThanThreshold',
          0,
        ]);
      }
    });

    it('sends failed scheduled invocations to the alarmed ScheduleFailuresQueue', () => {
      const schedules = Object.entries(get().manifest).filter(([, fn]) =>
        (fn.events ?? []).some((e) => 'schedule' in e),
      );
      expect(schedules.length).toBeGreaterThan(0);
      const configs = resourcesOfType('AWS::Lambda::EventInvokeConfig');
      for (const [name] of schedules) {
        const fn = lambdaByName().get(name);
        const lambdaId = Object.entries(all().find((t) => t.file === fn?.file)?.template.Resources ?? {}).find(
          ([, r]) => r === fn?.resource,
        )?.[0];
        const config = configs.find((c) => (c.resource.Properties?.FunctionName as { Ref?: string })?.Ref === lambdaId);
        const destination = (
          config?.resource.Properties?.DestinationConfig as { OnFailure?: { Destination: unknown } } | undefined
        )?.OnFailure?.Destination;
        expect([name, getAttId(throughParameters(get(), config?.file ?? '', destination))]).toEqual([
          name,
          'ScheduleFailuresQueue',
        ]);
      }
    });

    it('reserves concurrency for the job stream function', () => {
      expect(lambdaByName().get('jobStream')?.resource.Properties?.ReservedConcurrentExecutions).toBe(50);
    });
  });
}
