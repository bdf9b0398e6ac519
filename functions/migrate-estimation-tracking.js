/**
 * The one-time migration to per-item estimation send tracking
 * (lib/sends/migration-service.ts): `npm run migrate:estimation-tracking`
 * with the deployment's settings in the environment (TABLE_NAME and AWS
 * credentials, or the local stack's endpoints). Safe to run again.
 */
const { loadTypeScript } = require('./manifest');

loadTypeScript('lib/sends/migration-service.ts')
  .migrateEstimationSendTracking()
  .then((report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  })
  .catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
