/**
 * The one-time move of job rows from the single all-jobs partition to their
 * day buckets (lib/admin/migration-service.ts): `npm run migrate:job-days`
 * with the deployment's settings in the environment (TABLE_NAME and AWS
 * credentials, or the local stack's endpoints). Safe to run again.
 */
const { runMigration } = require('./run-migration');

runMigration('lib/admin/migration-service.ts', 'migrateJobIndexToDays');
