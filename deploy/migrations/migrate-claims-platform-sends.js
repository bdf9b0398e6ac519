/**
 * The one-time migration of claims platform sends made before sends were
 * leased state machines (lib/sends/claims-platform-migration-service.ts):
 * `npm run migrate:claims-platform-sends` with the deployment's settings in
 * the environment (TABLE_NAME and AWS credentials, or the local stack's
 * endpoints), once after the deploy. Safe to run again.
 */
const { runMigration } = require('./run-migration');

runMigration('lib/sends/claims-platform-migration-service.ts', 'migrateClaimsPlatformSends');
