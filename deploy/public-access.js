/**
 * What a public function (a route with auth 'none' or 'capability': the
 * homeowner link, the webhooks, certificates, capability URLs, health) may
 * touch, read from its own bundle, so its role (deploy/iam.js) follows the
 * code instead of a list kept by hand:
 *
 *  - table rows: the partition key prefixes of the keys its code builds
 *    (the builders of the table key modules: keys.<name>(…) of lib/db/keys.ts,
 *    <domain>Keys.<name>(…) and <domain>Indexes.<name>(…) of each domain's
 *    keys.ts; and literal `pk: 'X#…'` keys), for the DynamoDB calls its code makes;
 *  - media objects: the prefixes below a claim or a job its code builds keys
 *    under (blobKeys.claimPrefix(…)}insured/ → teams/*\/claims/*\/insured/*),
 *    for the S3 calls it makes;
 *  - queues: the purposes it dispatches to, and the workers of those queues
 *    (the queue-outage fallback invokes them directly);
 *  - team objects: a function whose code asks for a team's S3 client
 *    (s3ForTeam, lib/blob/team-credentials.ts) reaches teams/… objects only
 *    through the team-objects role, assumed with the team as a session tag
 *    (deploy/iam.js); its own role keeps the objects outside teams/.
 *
 * Everything is an over-approximation of one request (a module bundled for
 * the handler counts whole), never an under-approximation: a handler whose
 * S3 calls name no key prefix fails the build instead of getting the bucket.
 */
const PUBLIC_AUTH = new Set(['none', 'capability']);

/** The object key builders (lib/blob/keys.ts): what they build is read from `blobKeys.<name>(…)` calls. */
const OBJECT_KEY_MODULE = 'lib/blob/keys.ts';

/** A module of table key builders: lib/db/keys.ts, and each domain's keys.ts or <concept>-keys.ts. */
const isTableKeyModule = (file) =>
  file !== OBJECT_KEY_MODULE && /^lib\/(?:[\w-]+\/)*(?:[a-z0-9-]+-)?keys\.ts$/.test(file);

/** Key builders' modules name every key shape, not a row or object key of this handler: dropped before reading. */
const isKeyModule = (file) => file === OBJECT_KEY_MODULE || isTableKeyModule(file);

/** DynamoDB commands (lib-dynamodb and client-dynamodb names) → the IAM actions they need. */
const TABLE_COMMANDS = {
  Get: ['dynamodb:GetItem'],
  GetItem: ['dynamodb:GetItem'],
  Put: ['dynamodb:PutItem'],
  PutItem: ['dynamodb:PutItem'],
  Update: ['dynamodb:UpdateItem'],
  UpdateItem: ['dynamodb:UpdateItem'],
  Delete: ['dynamodb:DeleteItem'],
  DeleteItem: ['dynamodb:DeleteItem'],
  Query: ['dynamodb:Query'],
  BatchGet: ['dynamodb:BatchGetItem'],
  BatchGetItem: ['dynamodb:BatchGetItem'],
  BatchWrite: ['dynamodb:BatchWriteItem'],
  BatchWriteItem: ['dynamodb:BatchWriteItem'],
  // A transaction is authorised per item as well as as a whole.
  TransactWrite: [
    'dynamodb:TransactWriteItems',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  TransactWriteItems: [
    'dynamodb:TransactWriteItems',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  TransactGet: ['dynamodb:TransactGetItems', 'dynamodb:GetItem'],
  TransactGetItems: ['dynamodb:TransactGetItems', 'dynamodb:GetItem'],
};

/** S3 commands → object actions (a presigned URL is signed for the command it wraps). */
const OBJECT_COMMANDS = {
  GetObject: ['s3:GetObject'],
  HeadObject: ['s3:GetObject'],
  CopyObject: ['s3:GetObject', 's3:PutObject'],
  PutObject: ['s3:PutObject'],
  CreateMultipartUpload: ['s3:PutObject'],
  UploadPart: ['s3:PutObject'],
  CompleteMultipartUpload: ['s3:PutObject'],
  AbortMultipartUpload: ['s3:AbortMultipartUpload'],
  ListParts: ['s3:ListMultipartUploadParts'],
  DeleteObject: ['s3:DeleteObject'],
  DeleteObjects: ['s3:DeleteObject'],
  // @aws-sdk/lib-storage's multipart writer, and a presigned POST form.
  Upload: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
  createPresignedPost: ['s3:PutObject'],
};
const BUCKET_COMMANDS = { ListObjectsV2: ['s3:ListBucket'] };

/**
 * Powertools' idempotency layer calls DynamoDB itself, so its calls are not
 * in the handler's text: get, put, update and delete of the record row
 * (lib/http/idempotency.ts; keys.idempotency names the partition).
 */
const IDEMPOTENCY_PACKAGE = '@aws-lambda-powertools/idempotency';
const IDEMPOTENCY_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

const CLAIM_OBJECTS = 'teams/*/claims/*/';
const JOB_OBJECTS = `${CLAIM_OBJECTS}jobs/*/`;

const isPublicRoute = (route) => PUBLIC_AUTH.has(route.auth);

/** The bundle's text without the key-builder modules (they name every key shape). */
function ownText(bundleText) {
  const parts = bundleText.split(/^\/\/ (\S+)$/m);
  let text = parts[0];
  for (let i = 1; i < parts.length; i += 2) if (!isKeyModule(parts[i])) text += parts[i + 1];
  return text;
}

const matches = (text, pattern) => [...new Set([...text.matchAll(pattern)].map((m) => m.slice(1).join('|')))].sort();

/**
 * The facts of one handler's bundle that its public role is derived from
 * (cached with the analysis). Object key prefixes are read from the whole
 * source of every module bundled (`sources`: path → text), not the
 * tree-shaken bundle: a stored key (file.key) was built by a function of the
 * same module that the handler itself may not call.
 */
function bundleFacts(bundleText, sources) {
  const text = ownText(bundleText);
  const sourceText = Object.entries(sources)
    .filter(([file]) => !isKeyModule(file))
    .map(([, source]) => source)
    .join('\n');
  return {
    // 'jobKeys|job' for jobKeys.job(…) (esbuild numbers a name that two modules declare: jobKeys2).
    tableBuilders: matches(text, /\b(keys|indexes|[a-z]\w*?(?:Keys|Indexes))\d*\.(\w+)\(/g).filter(
      (call) => !call.startsWith('blobKeys|'),
    ),
    literalPartitions: matches(text, /\bpk: [`'"]([A-Z][A-Z0-9_]*(?:#|(?=['"])))/g),
    literalIndexes: matches(text, /\bindex: ['"](\w+)['"]/g),
    commands: [
      ...matches(text, /\b(\w+?)Command\b/g),
      ...matches(text, /\bnew (?:\w+\.)?(Upload)\(/g),
      // esbuild calls an import as (0, import_x.createPresignedPost)(…).
      ...matches(text, /\b(createPresignedPost)\)?\(/g),
    ],
    // A prefix builder and the literal folder written right after it in a template, if any.
    objectKeys: matches(sourceText, /\bblobKeys\d*\.(\w+)\([^()]*\)(?:\}([a-z_-]+\/))?/g),
    queues: matches(text, /\b(?:dispatch|dispatchAll|sendToQueue|sendBatchToQueue)\d*\(\s*['"]([a-z-]+)['"]/g),
    teamClient: /\bs3ForTeam\d*\(/.test(text),
  };
}

/** Stands for every argument of a key builder, to find where its fixed part ends. */
const PLACEHOLDER = '\u0001';

/** 'INSUREDLINK#*' from keys.insuredLink: the part of a built key before its first argument. */
function partitionPattern(pk) {
  const at = pk.indexOf(PLACEHOLDER);
  return at === -1 ? pk : `${pk.slice(0, at)}*`;
}

/** The object key patterns (below the bucket) of the prefixes a handler builds keys under. */
function objectPatterns(objectKeys, handler) {
  const patterns = objectKeys.map((entry) => {
    const [builder, folder = ''] = entry.split('|');
    if (builder === 'claimPrefix') return `${CLAIM_OBJECTS}${folder}*`;
    if (builder === 'jobPrefix') return `${JOB_OBJECTS}${folder}*`;
    if (builder === 'claimExport') return `${CLAIM_OBJECTS}exports/*`;
    if (builder === 'teamSettings') return 'team_settings/*';
    throw new Error(`deploy/public-access.js: ${handler} builds object keys with blobKeys.${builder}, unknown here`);
  });
  // teams/*/claims/*/jobs/* covers teams/*/claims/*/jobs/*/photos/*.
  return [...new Set(patterns)].filter((p) => !patterns.some((q) => q !== p && p.startsWith(q.slice(0, -1)))).sort();
}

/**
 * The access of a public function: { table?, indexes?, objects?, bucketList?, teamObjects?, queues }.
 * teamObjects: the teams/… patterns and actions it reaches through the team-objects role.
 * `tableKeys`: what the table key modules export, by name ({ keys, jobKeys, jobIndexes, … }). A call on a name
 * none exports is no key builder (a local `photoKeys.map(…)`); a builder its object lacks fails the build.
 */
function publicAccess({ handler, facts, packages, tableKeys }) {
  const callArgs = (fn) => Array.from({ length: Math.max(fn.length, 1) }, () => PLACEHOLDER);
  const partitions = new Set(facts.literalPartitions.map((p) => (p.endsWith('#') ? `${p}*` : p)));
  const indexNames = new Set(facts.literalIndexes);
  for (const call of facts.tableBuilders) {
    const [object, name] = call.split('|');
    if (!Object.hasOwn(tableKeys, object)) continue;
    const builder = tableKeys[object][name];
    if (typeof builder !== 'function')
      throw new Error(`deploy/public-access.js: ${handler} calls ${object}.${name}, which no table key module has`);
    const built = builder(...callArgs(builder));
    if (built.index) indexNames.add(built.index);
    else partitions.add(partitionPattern(built.pk));
  }

  const tableActions = new Set();
  const objectActions = new Set();
  const bucketActions = new Set();
  for (const command of facts.commands) {
    for (const a of TABLE_COMMANDS[command] ?? []) tableActions.add(a);
    for (const a of OBJECT_COMMANDS[command] ?? []) objectActions.add(a);
    for (const a of BUCKET_COMMANDS[command] ?? []) bucketActions.add(a);
  }
  if (packages.includes(IDEMPOTENCY_PACKAGE)) for (const a of IDEMPOTENCY_ACTIONS) tableActions.add(a);
  const usesTable = packages.some((p) => p.includes('dynamodb') || p.includes('idempotency'));
  const usesS3 = packages.some((p) => p.startsWith('@aws-sdk/client-s3') || p.startsWith('@aws-sdk/s3-'));

  const access = { queues: facts.queues };
  if (usesTable && tableActions.size) {
    access.table = { actions: [...tableActions].sort(), partitions: [...partitions].sort() };
    if (tableActions.has('dynamodb:Query') && indexNames.size) access.indexes = [...indexNames].sort();
  }
  if (usesS3 && (objectActions.size || bucketActions.size)) {
    const objects = objectPatterns(facts.objectKeys, handler);
    if (!objects.length)
      throw new Error(
        `deploy/public-access.js: ${handler} calls S3 but builds no key with lib/blob/keys.ts; a public function gets no object it cannot name`,
      );
    const actions = [...objectActions].sort();
    if (facts.teamClient) {
      if (bucketActions.size)
        throw new Error(
          `deploy/public-access.js: ${handler} lists the bucket and uses a team's S3 client; the team-objects role grants no listing`,
        );
      const teamPatterns = objects.filter((p) => p.startsWith('teams/'));
      const ownPatterns = objects.filter((p) => !p.startsWith('teams/'));
      if (teamPatterns.length) access.teamObjects = { actions, patterns: teamPatterns };
      if (ownPatterns.length) access.objects = { actions, patterns: ownPatterns };
    } else {
      access.objects = { actions, patterns: objects };
      if (bucketActions.size) access.bucketList = objects;
    }
  }
  return access;
}

module.exports = { isPublicRoute, isTableKeyModule, bundleFacts, publicAccess };
