/**
 * Project conventions that keep handlers thin, bundles small and domain folders readable (docs/architecture.md: file
 * roles in a domain folder, store modules, domain errors). Each check is a function of the file list, so it is also run on a
 * made-up list that must be reported: an empty list on the tree means a clean tree, not a scanner that saw nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** Paths relative to the root, with forward slashes. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [relative(root, path).split(sep).join('/')] : [];
  });
}

interface Source {
  path: string;
  text: string;
}

const read = (paths: string[]): Source[] =>
  paths.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));

/** Module specifiers of every import, export … from, require() and import() in a file. */
function specifiers(text: string): string[] {
  const found = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g);
  return [...found].map((m) => m[1]);
}

/** Lower layers, the engine, the pipelines and the composition layer have their own file names. */
const NOT_DOMAINS = [
  'config',
  'faults',
  'observability',
  'db',
  'blob',
  'queue',
  'http',
  'integrations',
  'background',
  'media',
  'pdf',
  'orchestrator',
  'pipelines',
  'api',
];
const DOMAIN_FILE = [
  /^(routes|schemas|examples|rules|keys|store|view|service)\.ts$/,
  /^[a-z0-9-]+-(routes|schemas|examples|rules|keys|store|view|service)\.ts$/,
];

/** Files outside lib/db that import the DynamoDB document client without being a store module. */
function dynamoDbOutsideStores(files: Source[]): string[] {
  const storeModule = (path: string) => path.startsWith('lib/db/') || /(^|-)store\.ts$/.test(posix.basename(path));
  return files
    .filter((f) => !storeModule(f.path) && specifiers(f.text).includes('@aws-sdk/lib-dynamodb'))
    .map((f) => f.path);
}

/** Files in a domain folder (lib/<domain>/**) whose name is none of the file roles. */
function domainFilesWithoutRole(paths: string[]): string[] {
  return paths.filter((path) => {
    const [top, folder, ...rest] = path.split('/');
    if (top !== 'lib' || rest.length === 0 || NOT_DOMAINS.includes(folder)) return false;
    // A declaration of an untyped package's types (lib/exports/fontkit.d.ts) is no module of the domain.
    if (path.endsWith('.d.ts')) return false;
    return !DOMAIN_FILE.some((role) => role.test(posix.basename(path)));
  });
}

/**
 * Pure modules (rules and views in lib/) that import a store module, as "importer → specifier". A record type they need
 * lives in a `<concept>-record-rules.ts` beside the store, so reading a rule never loads the database client.
 */
function storesImportedByPureModules(files: Source[]): string[] {
  const pureModule = (path: string) => path.startsWith('lib/') && /(^|-)(rules|view)\.ts$/.test(posix.basename(path));
  const storeModule = (spec: string) => /(^|-)store(\.[cm]?[jt]s)?$/.test(posix.basename(spec));
  return files
    .filter((f) => pureModule(f.path))
    .flatMap((f) =>
      specifiers(f.text)
        .filter(storeModule)
        .map((spec) => `${f.path} → ${spec}`),
    );
}

/** Key modules (keys.ts, <concept>-keys.ts) that import anything: a key is built from its arguments alone. */
function keyModulesWithImports(files: Source[]): string[] {
  return files
    .filter((f) => f.path.startsWith('lib/') && /(^|-)keys\.ts$/.test(posix.basename(f.path)))
    .filter((f) => specifiers(f.text).length > 0)
    .map((f) => f.path);
}

/** Importers of lib/http/errors outside lib/http and lib/api, as "importer → specifier". */
function httpErrorsOutsideEdge(files: Source[]): string[] {
  return files
    .filter((f) => !/^lib\/(http|api)\//.test(f.path))
    .flatMap((f) =>
      specifiers(f.text)
        .filter((spec) => spec.startsWith('.'))
        .filter((spec) => posix.join(posix.dirname(f.path), spec).replace(/\.ts$/, '') === 'lib/http/errors')
        .map((spec) => `${f.path} → ${spec}`),
    );
}

/**
 * The verbs use cases start with (docs/architecture.md: a use case is named verb first after the action). A new verb is added
 * here on purpose; a noun-first name (`teamCreditsBalance`) or a suffix for the caller (`getJobFor`) is not.
 */
const USE_CASE_VERBS = new Set(
  (
    'abort acquire add append approve archive cancel charge clear complete confirm connect count create deliver delete ensure finalize format ' +
    'get handle hard init list load log measure move normalize patch presign process provision purge queue quote record ' +
    'check edit fail merge migrate open post publish redirect refund regroup remove rename request resend resolve restore retry revoke segment set settle show start stream submit subscribe sweep unarchive update verify'
  ).split(' '),
);

/** Exported functions of service modules whose name does not start with a use-case verb or ends in "For". */
function useCasesNotNamedByAction(files: Source[]): string[] {
  const serviceModule = (path: string) => path.startsWith('lib/') && /(^|-)service\.ts$/.test(posix.basename(path));
  return files
    .filter((f) => serviceModule(f.path))
    .flatMap((f) =>
      [...f.text.matchAll(/^export\s+(?:async\s+)?function\*?\s+([A-Za-z0-9_]+)/gm)]
        .map((m) => m[1])
        .filter((name) => !USE_CASE_VERBS.has(name.split(/(?=[A-Z0-9])/)[0]) || /For$/.test(name))
        .map((name) => `${f.path}: ${name}`),
    );
}

/** The one module that writes presigned POST policies (browser upload forms). */
const UPLOAD_FORM_MODULE = 'lib/blob/presigned-post.ts';

/** Files outside UPLOAD_FORM_MODULE that import @aws-sdk/s3-presigned-post. */
function uploadFormsOutsideBlob(files: Source[]): string[] {
  return files
    .filter((f) => f.path !== UPLOAD_FORM_MODULE && specifiers(f.text).includes('@aws-sdk/s3-presigned-post'))
    .map((f) => f.path);
}

describe('conventions', () => {
  const lib = sources(join(root, 'lib'));
  const functions = sources(join(root, 'functions'));

  it('imports zod as a namespace (the named import pulls all of zod into every bundle)', () => {
    const offenders = read([...lib, ...functions]).filter((f) =>
      /import\s*\{\s*z\s*\}\s*from\s*['"]zod['"]/.test(f.text),
    );
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('keeps handlers thin: no AWS SDK or database access in functions/', () => {
    const offenders = read(functions).filter((f) => /from\s+['"]@aws-sdk\/|lib\/db\//.test(f.text));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('imports @aws-sdk/lib-dynamodb only in lib/db and store modules (store.ts, *-store.ts)', () => {
    expect(lib.length).toBeGreaterThan(100);
    expect(dynamoDbOutsideStores(read([...lib, ...functions]))).toEqual([]);
  });

  it('keeps rules and views pure: none imports a store module (record types live in *-record-rules.ts)', () => {
    expect(storesImportedByPureModules(read(lib))).toEqual([]);
  });

  it('builds table and object keys from their arguments alone: key modules import nothing', () => {
    expect(keyModulesWithImports(read(lib))).toEqual([]);
  });

  it('names every file of a domain folder after its role (routes, schemas, examples, rules, keys, store, view, service)', () => {
    expect(domainFilesWithoutRole(lib)).toEqual([]);
  });

  it(`writes presigned POST policies only in ${UPLOAD_FORM_MODULE}`, () => {
    expect(read(lib).some((f) => f.path === UPLOAD_FORM_MODULE)).toBe(true);
    expect(uploadFormsOutsideBlob(read([...lib, ...functions]))).toEqual([]);
  });

  it('imports lib/http/errors only in lib/http and lib/api (elsewhere, throw the errors of lib/errors.ts)', () => {
    expect(httpErrorsOutsideEdge(read([...lib, ...functions]))).toEqual([]);
  });

  it('names the use cases of service modules verb first after the action', () => {
    expect(useCasesNotNamedByAction(read(lib))).toEqual([]);
  });

  describe('reports violations in a made-up tree', () => {
    const file = (path: string, text = 'export const x = 1;\n'): Source => ({ path, text });

    it('DynamoDB outside a store module', () => {
      const files = [
        file('lib/db/client.ts', "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';"),
        file('lib/claims/store.ts', "import { GetCommand } from '@aws-sdk/lib-dynamodb';"),
        file('lib/jobs/job-store.ts', "import {\n  GetCommand,\n  PutCommand,\n} from '@aws-sdk/lib-dynamodb';"),
        file('lib/claims/service.ts', "import { GetCommand } from '@aws-sdk/lib-dynamodb';"),
        file('lib/rooms/restore.ts', 'import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";'),
        file('lib/teams/storefront.ts', "const ddb = require('@aws-sdk/lib-dynamodb');"),
        file('functions/api/get.ts', "const { GetCommand } = await import('@aws-sdk/lib-dynamodb');"),
        file('lib/users/user-store.ts', "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';"),
        file('lib/users/service.ts', '// @aws-sdk/lib-dynamodb is not imported here'),
      ];
      expect(dynamoDbOutsideStores(files)).toEqual([
        'lib/claims/service.ts',
        'lib/rooms/restore.ts',
        'lib/teams/storefront.ts',
        'functions/api/get.ts',
      ]);
    });

    it('a presigned POST outside lib/blob', () => {
      const files = [
        file(UPLOAD_FORM_MODULE, "import { createPresignedPost } from '@aws-sdk/s3-presigned-post';"),
        file('lib/photos/upload-service.ts', "import { createPresignedPost } from '@aws-sdk/s3-presigned-post';"),
        file(
          'lib/insured/file-service.ts',
          "const { createPresignedPost } = await import('@aws-sdk/s3-presigned-post');",
        ),
        file(
          'lib/inventory/photos/item-photo-upload-service.ts',
          "import { presignedUploadForm } from '../blob/presigned-post';",
        ),
      ];
      expect(uploadFormsOutsideBlob(files)).toEqual(['lib/photos/upload-service.ts', 'lib/insured/file-service.ts']);
    });

    it('a store imported by a rule or a view', () => {
      const files = [
        file('lib/billing/settlement-rules.ts', "import type { Job } from '../jobs/job-store';"),
        file('lib/claims/view.ts', "import type { Claim } from './store';"),
        file('lib/photos/grouping-rules.ts', "import { listStagedPhotos } from './staged-photo-store.ts';"),
        file('lib/admin/view.ts', "import {\n  getTeamsById,\n} from './store';"),
        file('lib/claims/rules.ts', "import type { Claim } from './claim-record-rules';"),
        file('lib/claims/service.ts', "import { getClaim } from './store';"),
        file('lib/jobs/job-store.ts', "import type { Job } from './job-record-rules';"),
        file('lib/teams/view.ts', "import { storefront } from './storefront';"),
        file('lib/rooms/restore-rules.ts', "import type { Room } from './restore';"),
      ];
      expect(storesImportedByPureModules(files)).toEqual([
        'lib/billing/settlement-rules.ts → ../jobs/job-store',
        'lib/claims/view.ts → ./store',
        'lib/photos/grouping-rules.ts → ./staged-photo-store.ts',
        'lib/admin/view.ts → ./store',
      ]);
    });

    it('a key module that imports', () => {
      const files = [
        file('lib/db/keys.ts', 'export const keys = {};'),
        file('lib/claims/keys.ts', "import { settings } from '../config';\nexport const claimKeys = {};"),
        file('lib/pipelines/pdf/template/template-keys.ts', "import type { Recipe } from './recipe-rules';"),
        file('lib/claims/store.ts', "import { claimKeys } from './keys';"),
      ];
      expect(keyModulesWithImports(files)).toEqual([
        'lib/claims/keys.ts',
        'lib/pipelines/pdf/template/template-keys.ts',
      ]);
    });

    it('a domain file without a role', () => {
      const paths = [
        'lib/claims/routes.ts',
        'lib/claims/keys.ts',
        'lib/claims/claim-store.ts',
        'lib/photos/grouping-rules.ts',
        'lib/photos/staged-photo-view.ts',
        'lib/jobs/ai-request-schemas.ts',
        'lib/uploads/examples.ts',
        'lib/claims/claim.ts',
        'lib/claims/index.ts',
        'lib/claims/utils.ts',
        'lib/photos/grouping-rules.test.ts',
        'lib/photos/Grouping-rules.ts',
        'lib/photos/-rules.ts',
        'lib/photos/nested/helpers.ts',
        'lib/db/batch.ts',
        'lib/orchestrator/engine.ts',
        'lib/pipelines/photo/analyze.ts',
        'lib/media/probe.ts',
        'lib/retry.ts',
      ];
      expect(domainFilesWithoutRole(paths)).toEqual([
        'lib/claims/claim.ts',
        'lib/claims/index.ts',
        'lib/claims/utils.ts',
        'lib/photos/grouping-rules.test.ts',
        'lib/photos/Grouping-rules.ts',
        'lib/photos/-rules.ts',
        'lib/photos/nested/helpers.ts',
      ]);
    });

    it('a use case not named by its action', () => {
      const files = [
        file('lib/job-actions/service.ts', 'export async function showJob() {}\nexport function listJobs() {}'),
        file('lib/jobs/stream-service.ts', 'export async function* streamJobEvents() {}\nexport const LIMIT = 5;'),
        file('lib/billing/charge-service.ts', 'export async function teamCreditsBalance() {}'),
        file('lib/job-actions/media-service.ts', 'export async function getJobFor() {}\nfunction helper() {}'),
        file('lib/jobs/job-store.ts', 'export async function jobRow() {}'),
      ];
      expect(useCasesNotNamedByAction(files)).toEqual([
        'lib/billing/charge-service.ts: teamCreditsBalance',
        'lib/job-actions/media-service.ts: getJobFor',
      ]);
    });

    it('lib/http/errors imported below the edge', () => {
      const files = [
        file('lib/http/endpoint.ts', "import { HttpError } from './errors';"),
        file('lib/api/endpoint.ts', "import { HttpError } from '../http/errors';"),
        file('lib/claims/service.ts', "import { notFound } from '../http/errors';"),
        file('lib/pipelines/photo/read-the-rest.ts', "import { conflict } from '../../http/errors.ts';"),
        file('functions/api/x.ts', "import type { HttpError } from '../../lib/http/errors';"),
        file('lib/claims/store.ts', "import { DomainError } from '../errors';"),
        file('lib/rooms/service.ts', "import { HttpResponse } from '../http/response';"),
      ];
      expect(httpErrorsOutsideEdge(files)).toEqual([
        'lib/claims/service.ts → ../http/errors',
        'lib/pipelines/photo/read-the-rest.ts → ../../http/errors.ts',
        'functions/api/x.ts → ../../lib/http/errors',
      ]);
    });
  });
});
