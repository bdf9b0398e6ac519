/**
 * The one-time migration of estimation sends made before sends ran on the
 * engine (lib/sends/estimation-migration-service.ts):
 * `npm run migrate:estimation-sends` with the deployment's settings in the
 * environment (TABLE_NAME and AWS credentials, or the local stack's
 * endpoints), once after the deploy. Safe to run again.
 */
const { runMigration } = require('./run-migration');

runMigration('lib/sends/estimation-migration-service.ts', 'migrateEstimationSends');
