/**
 * Jest test sequencer: starts the test files that took longest first, by the
 * times recorded in tests/support/test-durations.json (written by the
 * slowest-suites reporter when JEST_RECORD_DURATIONS=1). Jest's own sequencer
 * knows a file's time only from its cache, which a fresh CI machine does not
 * have, and then starts the largest files first: a two-minute file of modest
 * size could start last and run alone at the end. Files not in the record
 * (new ones) go first, since nothing says they are quick.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const durations = require('./test-durations.json');

class DurationSequencer extends Sequencer {
  sort(tests) {
    const seconds = (test) => durations[path.relative(test.context.config.rootDir, test.path)] ?? Infinity;
    return [...tests].sort((a, b) => seconds(b) - seconds(a));
  }
}

module.exports = DurationSequencer;
