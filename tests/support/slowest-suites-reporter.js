/**
 * Jest reporter: after a run, prints the 20 slowest test files with their
 * wall times (docs/testing.md, "Where the time goes", lists them), so where a run's time
 * goes is in every CI log. With JEST_RECORD_DURATIONS=1 it also records every
 * file's time in tests/support/test-durations.json, which the duration
 * sequencer orders the next runs by (longest first).
 */
const fs = require('node:fs');
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
    if (process.env.JEST_RECORD_DURATIONS === '1') this.record(suites);
  }

  /** Merges this run's file times into the record (a partial run updates only the files it ran). */
  record(suites) {
    const file = path.join(__dirname, 'test-durations.json');
    const known = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
    for (const suite of suites) known[suite.file] = Math.round(suite.seconds * 10) / 10;
    const sorted = Object.fromEntries(Object.entries(known).sort(([a], [b]) => a.localeCompare(b)));
    fs.writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}

module.exports = SlowestSuitesReporter;
