/**
 * `serverless package --stage ci` works offline and produces deployable output:
 *  - no AWS credentials, no network (every non-loopback connection is refused
 *    and recorded; none may be attempted),
 *  - every CloudFormation template (root + split-stacks nested stacks) is under
 *    the 500-resource limit, within the 200 parameters / 200 outputs limits and
 *    1 MB, and has no dangling reference,
 *  - each HTTP route and integration sits in the same stack as its function,
 *    and the resources declared in serverless.yml stay in the root stack,
 *  - every function of deploy/manifest.js has a zip, and each HTTP handler's
 *    zip is within its budget,
 *  - deployment safety: no secret value anywhere in the package, each function
 *    gets only the settings its code reads, least-privilege roles per function
 *    group, retained and recoverable storage, alarms on dead-letter queues,
 *    failure destinations for schedules, bounded job stream concurrency
 *    (deployment-checks.ts),
 *  - the media layers: ready zips used as they are, linux-arm64 ffmpeg,
 *    ffprobe, sharp, pdfkit and pdf.js with @napi-rs/canvas laid out for
 *    /opt, on exactly the workers that need them, each worker with its layers
 *    under Lambda's 250 MB unzipped limit (media-layers.ts).
 */
import path from 'node:path';
import { describeDeploymentSafety, PACKAGING_ENV } from './deployment-checks';
import { describeMediaLayers } from './media-layers';
import {
  danglingReferences,
  kib,
  nestedTemplateFileOf,
  readTemplates,
  removeSnapshot,
  runServerlessPackage,
  snapshotService,
  table,
  zipSizes,
  type PackageRun,
  type Template,
  type TemplateFile,
} from '../support/packaging';

/**
 * Budget for every HTTP handler's zip (functions with an httpApi event). 350 rather than 300 KiB: every handler
 * bundles the outbound signals' SDKs (OpenTelemetry's log export and Sentry's Node client, ~45 KiB zipped; no layer
 * can carry them, and every function logs and may report an expired session), loaded only when configured.
 */
const HTTP_HANDLER_ZIP_BUDGET = 350 * 1024;
/**
 * Handlers allowed a larger zip, each with its own budget and a reason.
 * Keep empty unless a handler really needs a heavy dependency.
 */
const HTTP_HANDLER_ZIP_BUDGET_OVERRIDES: Record<string, number> = {
  // One route both issues the presigned POST (S3 presigner) and confirms it (queue hand-off with its
  // direct-invoke fallback, the item photo transaction and activity): confirmPhotos' clients and a bit more.
  // (Each override carries the default's outbound-signal SDKs too.)
  replaceItemPhoto: 370 * 1024,
  attachItemPhoto: 370 * 1024,
  // The same two-call photo route (presigner, confirm with its queue hand-off); it also starts jobs, so the engine
  // brings the trace and metrics SDKs (~25 KiB).
  confirmPhotos: 390 * 1024,
  // Confirming a contents list, or a recording's last part, starts its job: the engine, with the trace SDK
  // (and for the contents list the metrics SDK).
  confirmImport: 385 * 1024,
  completeUpload: 370 * 1024,
  // The homeowner thumbnail decodes any photo the service takes, HEIC included (its decoder is bundled;
  // sharp comes from the layer).
  insuredFileThumb: 1100 * 1024,
};
/** Lambda's limit for a directly uploaded zip; applies to every function. */
const LAMBDA_ZIP_LIMIT = 50 * 1024 * 1024;

const CFN_MAX_RESOURCES = 500;
const CFN_MAX_PARAMETERS = 200;
const CFN_MAX_OUTPUTS = 200;
const CFN_MAX_TEMPLATE_BYTES = 1_000_000;

interface ManifestFunction {
  handler: string;
  events: Record<string, unknown>[];
}

let run: PackageRun;
let manifest: Record<string, ManifestFunction>;
let root: TemplateFile;
let nested: TemplateFile[];
let zips: Record<string, number>;

const allTemplates = () => [root, ...nested];
const isHttp = (fn: ManifestFunction) => (fn.events ?? []).some((e) => 'httpApi' in e);

let serviceDir: string | undefined;

beforeAll(async () => {
  // The media layer zips are ready in .layers/ (global-setup.ts), shared with the snapshot.
  serviceDir = snapshotService();
  // The manifest of the same snapshot that is packaged.
  manifest = require(path.join(serviceDir, 'deploy', 'manifest.js')).functions;
  run = await runServerlessPackage(serviceDir, 'ci', undefined, PACKAGING_ENV);
  if (run.exitCode !== 0) throw new Error(`serverless package failed (exit ${run.exitCode}):\n${run.output}`);
  ({ root, nested } = readTemplates(run.packageDir));
  zips = zipSizes(run.packageDir);

  const stackRows = allTemplates().map(({ file, bytes, template }) => [
    file.replace(/^cloudformation-template-|\.json$/g, ''),
    Object.keys(template.Resources).length,
    Object.keys(template.Parameters ?? {}).length,
    Object.keys(template.Outputs ?? {}).length,
    kib(bytes),
  ]);
  const zipRows = Object.entries(manifest).map(([name, fn]) => {
    const budget = isHttp(fn) ? (HTTP_HANDLER_ZIP_BUDGET_OVERRIDES[name] ?? HTTP_HANDLER_ZIP_BUDGET) : LAMBDA_ZIP_LIMIT;
    return [name, isHttp(fn) ? 'http' : 'other', zips[name] === undefined ? 'MISSING' : kib(zips[name]), kib(budget)];
  });
  console.log(
    `serverless package: ${(run.durationMs / 1000).toFixed(1)} s, ${Object.keys(manifest).length} functions\n\n` +
      `${table(['stack', 'resources', 'params', 'outputs', 'size'], stackRows)}\n\n` +
      table(['function', 'kind', 'zip', 'budget'], zipRows),
  );
}, 10 * 60_000);

afterAll(() => {
  // KEEP_PACKAGING_OUTPUT=1 keeps the snapshot and its package directory for inspection.
  if (!serviceDir) return;
  if (process.env.KEEP_PACKAGING_OUTPUT) console.log(`packaging output kept in ${path.dirname(serviceDir)}`);
  else removeSnapshot(serviceDir);
});

describe('serverless package --stage ci', () => {
  it('needs no AWS credentials and makes no network connection', () => {
    expect(run.networkAttempts).toEqual([]);
  });

  it('writes nested stacks for the split and a root stack that points at each of them', () => {
    expect(nested.length).toBeGreaterThan(0);
    const stackResources = Object.entries(root.template.Resources).filter(
      ([, r]) => r.Type === 'AWS::CloudFormation::Stack',
    );
    const referenced = stackResources.map(([, r]) => nestedTemplateFileOf(r)).sort();
    expect(referenced).toEqual(nested.map((n) => n.file).sort());
  });

  it('keeps every template within the CloudFormation limits', () => {
    for (const { file, bytes, template } of allTemplates()) {
      const counts = {
        file,
        resources: Object.keys(template.Resources).length,
        parameters: Object.keys(template.Parameters ?? {}).length,
        outputs: Object.keys(template.Outputs ?? {}).length,
      };
      expect(counts.resources).toBeLessThan(CFN_MAX_RESOURCES);
      expect(counts.parameters).toBeLessThanOrEqual(CFN_MAX_PARAMETERS);
      expect(counts.outputs).toBeLessThanOrEqual(CFN_MAX_OUTPUTS);
      expect(bytes).toBeLessThanOrEqual(CFN_MAX_TEMPLATE_BYTES);
    }
  });

  it('leaves no dangling reference in any template', () => {
    const problems = allTemplates().flatMap(({ file, template }) =>
      danglingReferences(template).map((p) => `${file}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('wires every nested stack parameter and output the root uses', () => {
    const nestedByFile = new Map(nested.map((n) => [n.file, n.template]));
    const problems: string[] = [];
    const stackIds = new Map<string, Template>();
    for (const [id, resource] of Object.entries(root.template.Resources)) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const child = nestedByFile.get(nestedTemplateFileOf(resource) ?? '');
      if (!child) {
        problems.push(`${id}: no template file`);
        continue;
      }
      stackIds.set(id, child);
      const passed = Object.keys((resource.Properties?.Parameters as object) ?? {}).sort();
      const declared = Object.keys(child.Parameters ?? {}).sort();
      if (JSON.stringify(passed) !== JSON.stringify(declared))
        problems.push(`${id}: parameters ${passed} vs ${declared}`);
    }
    // Fn::GetAtt [<n>NestedStack, Outputs.X] must name an output of that nested stack.
    const text = JSON.stringify(root.template);
    for (const match of text.matchAll(/"Fn::GetAtt":\["([^"]+)","Outputs\.([^"]+)"\]/g)) {
      const child = stackIds.get(match[1]);
      if (!child?.Outputs?.[match[2]])
        problems.push(`root reads ${match[1]}.Outputs.${match[2]}, which does not exist`);
    }
    expect(problems).toEqual([]);
  });

  it('puts each HTTP route and integration in the stack of the function it invokes', () => {
    const stackOf = new Map<string, string>();
    for (const { file, template } of allTemplates())
      for (const id of Object.keys(template.Resources)) stackOf.set(id, file);
    const rootTypes = Object.values(root.template.Resources).map((r) => r.Type);
    expect(rootTypes).not.toContain('AWS::ApiGatewayV2::Route');
    expect(rootTypes).not.toContain('AWS::ApiGatewayV2::Integration');
    expect(rootTypes).not.toContain('AWS::Lambda::Function');

    const misplaced: string[] = [];
    for (const { file, template } of nested) {
      for (const [id, resource] of Object.entries(template.Resources)) {
        if (resource.Type !== 'AWS::ApiGatewayV2::Route') continue;
        const join = (resource.Properties?.Target as { 'Fn::Join': [string, unknown[]] } | undefined)?.['Fn::Join'][1];
        const integrationId = ((join ?? []).find((p) => typeof p === 'object') as { Ref: string }).Ref;
        const integration = template.Resources[integrationId];
        const lambdaId = (integration?.Properties?.IntegrationUri as { 'Fn::GetAtt': string[] } | undefined)?.[
          'Fn::GetAtt'
        ]?.[0];
        if (!integration || !lambdaId || stackOf.get(lambdaId) !== file)
          misplaced.push(`${id} (${file}) → ${integrationId} → ${lambdaId} (${stackOf.get(lambdaId ?? '')})`);
      }
    }
    expect(misplaced).toEqual([]);
    const routes = nested
      .flatMap((n) => Object.values(n.template.Resources))
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
    expect(routes).toHaveLength(Object.values(manifest).filter(isHttp).length);
  });

  it('keeps the resources declared in serverless.yml and the HTTP API in the root stack', () => {
    const state = require(path.join(run.packageDir, 'serverless-state.json'));
    const declared = Object.keys(state.service.resources?.Resources ?? {});
    expect(declared.length).toBeGreaterThan(0);
    for (const id of [...declared, 'HttpApi', 'HttpApiStage', 'ServerlessDeploymentBucket']) {
      expect(Object.keys(root.template.Resources)).toContain(id);
    }
  });

  it('zips every function of the manifest', () => {
    const missing = Object.keys(manifest).filter((name) => zips[name] === undefined);
    expect(missing).toEqual([]);
  });

  it('keeps every HTTP handler zip within its budget', () => {
    const over = Object.entries(manifest)
      .filter(([, fn]) => isHttp(fn))
      .map(([name]) => ({
        name,
        size: zips[name],
        budget: HTTP_HANDLER_ZIP_BUDGET_OVERRIDES[name] ?? HTTP_HANDLER_ZIP_BUDGET,
      }))
      .filter(({ size, budget }) => size >= budget)
      .map(({ name, size, budget }) => `${name}: ${kib(size)} ≥ ${kib(budget)}`);
    expect(over).toEqual([]);
    for (const name of Object.keys(HTTP_HANDLER_ZIP_BUDGET_OVERRIDES)) expect(manifest[name]).toBeDefined();
  });

  it('keeps every other zip under the Lambda upload limit', () => {
    for (const size of Object.values(zips)) expect(size).toBeLessThan(LAMBDA_ZIP_LIMIT);
  });
});

describeDeploymentSafety(() => ({ run, root, nested, manifest }));
describeMediaLayers(() => ({ run, root, nested, manifest }));
