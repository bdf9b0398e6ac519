/**
 * Jest reporter: after a run, prints the 20 slowest test files with their
 * wall times (the README's Tests section lists them), so where a run's time
 * goes is in every CI log.
 */
const path = require('node:path');

const SHOWN = 20;

class SlowestSuitesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const suites = results.testResults
      .map((suite) => ({
        file: path.relative(this.rootDir, suite.testFilePath),
        seconds: (suite.perfStats.end - suite.perfStats.start) / 1000,
        tests: suite.numPassingTests + suite.numFailingTests + suite.numPendingTests,
      }))
      .filter((suite) => Number.isFinite(suite.seconds))
      .sort((a, b) => b.seconds - a.seconds);
    const total = suites.reduce((sum, suite) => sum + suite.seconds, 0);
    const wall = (Date.now() - results.startTime) / 1000;
    const lines = [
      '',
      `Slowest ${Math.min(SHOWN, suites.length)} of ${suites.length} test files (${total.toFixed(0)} s of test-file time in ${wall.toFixed(0)} s of wall time):`,
      ...suites
        .slice(0, SHOWN)
        .map(
          (suite) =>
            `  ${suite.seconds.toFixed(1).padStart(6)} s  ${String(suite.tests).padStart(3)} tests  ${suite.file}`,
        ),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

module.exports = SlowestSuitesReporter;
