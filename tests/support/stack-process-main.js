/**
 * A whole local stack in a process of its own (tests/support/stack-process.ts
 * spawns it), so a test can end every process of the stack at once with
 * SIGKILL, as a machine dying would: this process (the S3 and SQS emulators,
 * queue delivery, the job event streams), serverless offline with the
 * functions and DynamoDB Local. The options of startLocalService come as JSON
 * in STACK_PROCESS_OPTIONS; one JSON line on stdout says the stack is ready.
 * SIGTERM stops it cleanly.
 */
const { startLocalService } = require('../../localstack/runtime/service.js');

const options = JSON.parse(process.env.STACK_PROCESS_OPTIONS ?? '{}');
const log = (line) => process.stderr.write(`[stack] ${line}\n`);

startLocalService({ ...options, log, onOfflineOutput: (chunk) => process.stderr.write(chunk) }).then(
  (service) => {
    let stopping = false;
    process.on('SIGTERM', () => {
      if (stopping) return;
      stopping = true;
      void service.stop().finally(() => process.exit(0));
    });
    process.stdout.write(`${JSON.stringify({ ready: true, url: service.url, env: service.env })}\n`);
  },
  (err) => {
    log(`could not start: ${err.stack ?? err}`);
    process.exit(1);
  },
);
