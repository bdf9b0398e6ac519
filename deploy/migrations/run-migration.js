/**
 * Runs one of the one-time data migrations of lib/ (deploy/migrations/migrate-*.js)
 * with the deployment's settings in the environment: prints its report as
 * JSON, or the error and exit code 1.
 */
const { loadTypeScript } = require('../manifest');

/** Calls `name` of the TypeScript module at `modulePath` (relative to the repository). */
function runMigration(modulePath, name) {
  return loadTypeScript(modulePath)
    [name]()
    .then((report) => {
      process.stdout.write(`${JSON.stringify(report)}\n`);
    })
    .catch((err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    });
}

module.exports = { runMigration };
