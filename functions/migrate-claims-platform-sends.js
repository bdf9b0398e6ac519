/**
 * The one-time migration of claims platform sends made before sends were
 * leased state machines (lib/sends/claims-platform-migration-service.ts):
 * `npm run migrate:claims-platform-sends` with the deployment's settings in
 * the environment (TABLE_NAME and AWS credentials, or the local stack's
 * endpoints), once after the deploy. Safe to run again.
 */
const { loadTypeScript } = require('./manifest');

loadTypeScript('lib/sends/claims-platform-migration-service.ts')
  .migrateClaimsPlatformSends()
  .then((report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  })
  .catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
