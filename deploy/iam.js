/**
 * Resources generated from the function declarations (deploy/manifest.js):
 *
 *  - One execution role per function group: the HTTP API, each queue worker
 *    kind, the schedules and the job stream. A role allows only the AWS
 *    services its functions' code imports (the manifest's esbuild analysis),
 *    on the exact resources of this stack: the table and its indexes, the
 *    bucket's objects, the work queues by ARN, the worker functions by name,
 *    its own functions' log groups, and the secret parameters under
 *    /<service>/<stage>/ when one of its functions reads a secret setting.
 *    No statement has a wildcard in a service, region, account or resource
 *    name; only object keys (bucket/*), table indexes (index/*) and log
 *    streams of a named log group (…:log-group:<name>:*) are open-ended.
 *  - One role per public route (auth 'none' or 'capability'), scoped to the
 *    rows, objects and queues its own code uses (publicRoleStatements).
 *  - The team-objects role (deploy/team-objects-role.js), when a public function's code
 *    asks for a team's S3 client: the only way those functions reach objects
 *    under teams/, one team per session (the session tag `team`).
 *  - One CloudWatch alarm per dead-letter queue (any queue another queue's
 *    RedrivePolicy names, plus the schedules' failure destination), firing as
 *    soon as one message is visible there.
 *
 * The SecureString parameters use the AWS-managed aws/ssm key, whose key
 * policy already lets account principals decrypt through SSM, so no
 * kms:Decrypt grant is needed. A customer-managed key would need one, on
 * that key's ARN.
 */
const { declaredResources, loadServerlessConfig } = require('./serverless-config');
const { TEAM_OBJECTS_ROLE, TEAM_TAG_CONDITION, teamObjectsRole, teamObjectsRoleArn } = require('./team-objects-role');

const DYNAMODB_PACKAGES = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-lambda-powertools/idempotency'];
const S3_PACKAGES = ['@aws-sdk/client-s3', '@aws-sdk/s3-request-presigner', '@aws-sdk/s3-presigned-post'];
const SQS_PACKAGES = ['@aws-sdk/client-sqs'];
const LAMBDA_PACKAGES = ['@aws-sdk/client-lambda'];

const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:TransactWriteItems',
  'dynamodb:TransactGetItems',
];
const BUCKET_ACTIONS = ['s3:ListBucket', 's3:ListBucketMultipartUploads'];
const OBJECT_ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
  's3:ListMultipartUploadParts',
  's3:AbortMultipartUpload',
];

const getAtt = (id, attribute) => ({ 'Fn::GetAtt': [id, attribute] });
const sub = (text) => ({ 'Fn::Sub': text });
const allow = (Action, Resource) => ({ Effect: 'Allow', Action, Resource });

/** PurgeQueue for purpose 'purge' (same rule as the manifest). */
const queueLogicalId = (purpose) => `${purpose.replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase())}Queue`;

function roleStatements({ service, stage, members, profiles, secretNames, scheduleFailuresQueue }) {
  const uses = (packages) => members.some((name) => profiles[name].packages.some((p) => packages.includes(p)));
  const workQueues = [
    ...new Set(
      Object.values(profiles)
        .map((p) => p.queue)
        .filter(Boolean),
    ),
  ].sort();
  const workers = Object.keys(profiles)
    .filter((name) => profiles[name].queue)
    .sort();
  const functionArn = (name) =>
    sub(`arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${service}-${stage}-${name}`);
  const parameterArn = parameterArnOf(service, stage);

  const statements = [];
  if (uses(DYNAMODB_PACKAGES)) {
    statements.push(
      allow(TABLE_ACTIONS, [getAtt('Table', 'Arn'), { 'Fn::Join': ['/', [getAtt('Table', 'Arn'), 'index', '*']] }]),
    );
  }
  if (uses(S3_PACKAGES)) {
    statements.push(allow(BUCKET_ACTIONS, getAtt('MediaBucket', 'Arn')));
    statements.push(allow(OBJECT_ACTIONS, { 'Fn::Join': ['/', [getAtt('MediaBucket', 'Arn'), '*']] }));
  }
  if (uses(SQS_PACKAGES)) {
    statements.push(
      allow(
        ['sqs:SendMessage', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
        workQueues.map((q) => getAtt(queueLogicalId(q), 'Arn')),
      ),
    );
  }
  if (uses(LAMBDA_PACKAGES)) {
    // The queue-outage fallback invokes the worker that consumes the queue (lib/queue/dispatch.ts).
    statements.push(allow('lambda:InvokeFunction', workers.map(functionArn)));
  }
  const consumed = [...new Set(members.map((name) => profiles[name].queue).filter(Boolean))];
  for (const purpose of consumed) {
    const actions = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
    // Unit retries back off by changing the message's visibility.
    if (purpose === 'units') actions.push('sqs:ChangeMessageVisibility');
    statements.push(allow(actions, getAtt(queueLogicalId(purpose), 'Arn')));
  }
  if (members.some((name) => profiles[name].kind === 'schedule')) {
    statements.push(allow('sqs:SendMessage', getAtt(scheduleFailuresQueue, 'Arn')));
  }
  if (members.some((name) => profiles[name].readsSecrets))
    statements.push(...secretStatements(parameterArn, secretNames));
  return statements;
}

/** Reading this stage's secret parameters (lib/config/secrets.ts loads them by path). */
function secretStatements(parameterArn, secretNames) {
  return [
    allow('ssm:GetParametersByPath', parameterArn('')),
    allow(
      ['ssm:GetParameter', 'ssm:GetParameters'],
      secretNames.map((name) => parameterArn(`/${name}`)),
    ),
  ];
}

const parameterArnOf = (service, stage) => (suffix) =>
  sub(`arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/${service}/${stage}${suffix}`);

/**
 * The statements of a public function's own role, from its access
 * (deploy/public-access.js). Table rows only under the partition key
 * prefixes its code builds (dynamodb:LeadingKeys); index queries on the
 * indexes it names, unconditioned, because LeadingKeys is evaluated against
 * the table's partition key, which an index query does not carry; media
 * objects only under the folders of a claim or job its code builds keys
 * for; and only the queues it dispatches to, with their workers for the
 * queue-outage fallback.
 *
 * The key design has no team in a partition key (CLAIM#<id>, INSUREDLINK#<id>)
 * or a way for a role to know the team a token resolves to, so no role can
 * stop one team's link from naming another team's rows: that rests on the
 * token lookup (lib/insured/access-service.ts). Objects do begin with their
 * team: a function that asks for a team's S3 client gets no teams/… object
 * here, only sts:AssumeRole on the team-objects role with one `team` session
 * tag (deploy/team-objects-role.js), so S3 itself refuses another team's key. For the
 * others, the key checks before signing (lib/jobs/job-object-rules.ts) do,
 * and the role bounds what kind of row and object they can reach at all.
 */
function publicRoleStatements({ service, stage, profile, profiles, secretNames }) {
  const { access } = profile;
  const functionArn = (name) =>
    sub(`arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${service}-${stage}-${name}`);
  const statements = [];
  if (access.table) {
    statements.push({
      ...allow(access.table.actions, getAtt('Table', 'Arn')),
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': access.table.partitions } },
    });
  }
  if (access.indexes) {
    statements.push(
      allow(
        'dynamodb:Query',
        access.indexes.map((index) => ({ 'Fn::Join': ['/', [getAtt('Table', 'Arn'), 'index', index]] })),
      ),
    );
  }
  if (access.objects) {
    statements.push(
      allow(
        access.objects.actions,
        access.objects.patterns.map((pattern) => ({ 'Fn::Join': ['/', [getAtt('MediaBucket', 'Arn'), pattern]] })),
      ),
    );
  }
  if (access.teamObjects) {
    statements.push({
      ...allow(['sts:AssumeRole', 'sts:TagSession'], teamObjectsRoleArn(service, stage)),
      Condition: TEAM_TAG_CONDITION,
    });
  }
  if (access.bucketList) {
    statements.push({
      ...allow('s3:ListBucket', getAtt('MediaBucket', 'Arn')),
      Condition: { StringLike: { 's3:prefix': access.bucketList } },
    });
  }
  if (access.queues.length) {
    const workers = Object.keys(profiles).filter((name) => access.queues.includes(profiles[name].queue));
    for (const queue of access.queues)
      if (!workers.some((name) => profiles[name].queue === queue))
        throw new Error(`deploy/iam.js: a public function dispatches to queue ${queue}, which no worker consumes`);
    statements.push(
      allow(
        ['sqs:SendMessage', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
        access.queues.map((q) => getAtt(queueLogicalId(q), 'Arn')),
      ),
    );
    statements.push(allow('lambda:InvokeFunction', workers.sort().map(functionArn)));
  }
  if (profile.readsSecrets) statements.push(...secretStatements(parameterArnOf(service, stage), secretNames));
  return statements;
}

/**
 * Log groups are named per function, so the HTTP API role lists ~70 of them:
 * more than fits in a role's 10,240 characters of inline policy. They go into
 * managed policies of at most LOG_GROUPS_PER_POLICY groups each (6,144
 * characters per managed policy), attached through the role's
 * ManagedPolicyArns so the role is complete before any function uses it.
 */
const LOG_GROUPS_PER_POLICY = 35;

function logPolicies({ service, stage, role, members }) {
  const policies = {};
  for (let i = 0; i < members.length; i += LOG_GROUPS_PER_POLICY) {
    const chunk = members.slice(i, i + LOG_GROUPS_PER_POLICY);
    policies[`${role}Logs${i / LOG_GROUPS_PER_POLICY + 1}`] = {
      Type: 'AWS::IAM::ManagedPolicy',
      Properties: {
        Description: `Log writing for the functions of ${role} (${service} ${stage})`,
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            allow(
              ['logs:CreateLogStream', 'logs:PutLogEvents'],
              chunk.map((name) =>
                sub(
                  `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${service}-${stage}-${name}:*`,
                ),
              ),
            ),
          ],
        },
      },
    };
  }
  return policies;
}

function roles({ service, stage, profiles, secretNames, scheduleFailuresQueue }) {
  const groups = new Map();
  for (const [name, profile] of Object.entries(profiles)) {
    if (!groups.has(profile.role)) groups.set(profile.role, []);
    groups.get(profile.role).push(name);
  }
  const resources = {};
  for (const [role, members] of groups) {
    members.sort();
    const logs = logPolicies({ service, stage, role, members });
    Object.assign(resources, logs);
    // A public function's role is its own (manifest.js names it after the function).
    const { access } = profiles[members[0]];
    const statements = access
      ? publicRoleStatements({ service, stage, profile: profiles[members[0]], profiles, secretNames })
      : roleStatements({ service, stage, members, profiles, secretNames, scheduleFailuresQueue });
    if (access && members.length > 1) throw new Error(`deploy/iam.js: public role ${role} is shared`);
    resources[role] = {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: ['sts:AssumeRole'] },
          ],
        },
        ManagedPolicyArns: Object.keys(logs).map((id) => ({ Ref: id })),
        ...(statements.length
          ? {
              Policies: [
                {
                  PolicyName: `${service}-${stage}-${role}`,
                  PolicyDocument: { Version: '2012-10-17', Statement: statements },
                },
              ],
            }
          : {}),
      },
    };
  }
  Object.assign(resources, teamObjectsRole({ service, stage, profiles }));
  return resources;
}

/** Logical ids of the queues that hold failed messages: redrive targets and the schedules' failure queue. */
function deadLetterQueues(declared, scheduleFailuresQueue) {
  const ids = new Set();
  for (const resource of Object.values(declared)) {
    if (resource.Type !== 'AWS::SQS::Queue') continue;
    const target = resource.Properties?.RedrivePolicy?.deadLetterTargetArn;
    const id = target?.['Fn::GetAtt']?.[0];
    if (id) ids.add(id);
  }
  ids.add(scheduleFailuresQueue);
  for (const id of ids) {
    if (declared[id]?.Type !== 'AWS::SQS::Queue')
      throw new Error(`deploy/iam.js: dead-letter queue ${id} is not declared in serverless.yml`);
  }
  return [...ids].sort();
}

function deadLetterAlarms(declared, scheduleFailuresQueue) {
  const alarms = {};
  for (const id of deadLetterQueues(declared, scheduleFailuresQueue)) {
    alarms[`${id}DepthAlarm`] = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmDescription: `Messages are waiting in ${id}: work failed and needs a look (redrive or discard).`,
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(id, 'QueueName') }],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      },
    };
  }
  return alarms;
}

function generatedResources({ service, stage, profiles, secretNames, scheduleFailuresQueue }) {
  const declared = declaredResources(loadServerlessConfig());
  return {
    Resources: {
      ...roles({ service, stage, profiles, secretNames, scheduleFailuresQueue }),
      ...deadLetterAlarms(declared, scheduleFailuresQueue),
    },
  };
}

module.exports = { generatedResources, deadLetterQueues, roleStatements, roles, TEAM_OBJECTS_ROLE };
