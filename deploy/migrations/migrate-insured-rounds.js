/**
 * The one-time migration of homeowner submit rounds being made when rounds
 * moved onto the engine (lib/insured/submit-round-migration-service.ts):
 * `npm run migrate:insured-rounds` with the deployment's settings in the
 * environment (TABLE_NAME and AWS credentials, or the local stack's
 * endpoints), once after the deploy. Safe to run again.
 */
const { runMigration } = require('./run-migration');

runMigration('lib/insured/submit-round-migration-service.ts', 'migrateInsuredSubmitRounds');
