/**
 * The one-time migration to per-item estimation send tracking
 * (lib/sends/migration-service.ts): `npm run migrate:estimation-tracking`
 * with the deployment's settings in the environment (TABLE_NAME and AWS
 * credentials, or the local stack's endpoints). Safe to run again.
 */
const { runMigration } = require('./run-migration');

runMigration('lib/sends/migration-service.ts', 'migrateEstimationSendTracking');
