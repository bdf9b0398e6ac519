/**
 * The one-time move of job rows from the single all-jobs partition to their
 * day buckets (lib/admin/migration-service.ts): `npm run migrate:job-days`
 * with the deployment's settings in the environment (TABLE_NAME and AWS
 * credentials, or the local stack's endpoints). Safe to run again.
 */
const { loadTypeScript } = require('./manifest');

loadTypeScript('lib/admin/migration-service.ts')
  .migrateJobIndexToDays()
  .then((report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  })
  .catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
