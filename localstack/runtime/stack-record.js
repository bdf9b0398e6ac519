/**
 * Which processes a local stack started on a data directory, kept in
 * `<dataDir>/stack.json` while it runs, so the next start on the same data
 * can tell what a start that never stopped left behind.
 *
 * DynamoDB Local and serverless offline run in process groups of their own
 * (so a Ctrl-C reaches them through our shutdown, not at random): when the
 * process that started them is killed without a chance to stop them (SIGKILL,
 * the OOM killer), they live on, hold their ports and DynamoDB's files, and
 * the next `npm start` could not start. The next start on the data directory
 * kills those leftovers first. A stack whose starting process still runs is
 * refused instead: two stacks must not share one data directory.
 *
 * A process is known by its pid and its command line as it was at the start,
 * so a pid the system has since given to another program is left alone.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const RECORD = 'stack.json';

/** The process's command line, or null when it is gone (a zombie counts as gone). */
function commandOf(pid) {
  try {
    const [state, command] = execFileSync('ps', ['-ww', '-o', 'stat=', '-o', 'command=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split(/\s+(.*)/s);
    return state.startsWith('Z') ? null : command;
  } catch {
    return null;
  }
}

/** What to write down for `pid`: enough to recognise it later (and what it is, for a reader of the file). */
function known(pid, role) {
  return { pid, command: commandOf(pid), ...(role && { role }) };
}

const stillThere = (entry) => entry.command !== null && commandOf(entry.pid) === entry.command;

/** Whether any live process (not a zombie) is in one of the process groups `groups`. */
function anyAliveIn(groups) {
  try {
    return execFileSync('ps', ['-A', '-o', 'pgid=', '-o', 'stat='], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .some(([pgid, state]) => groups.includes(Number(pgid)) && !state.startsWith('Z'));
  } catch {
    return false;
  }
}

/** Whether `port` can be listened on (127.0.0.1, as the stack listens). */
function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Before a start on `dataDir`: refuses when the stack recorded there still
 * runs, and SIGKILLs the process groups a killed one left behind.
 */
async function takeOverDataDir(dataDir, log = () => {}) {
  const file = path.join(dataDir, RECORD);
  let record;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  if (record.owner && stillThere(record.owner))
    throw new Error(
      `a local stack started by pid ${record.owner.pid} is running on ${dataDir}: stop it first (two stacks cannot share one data directory)`,
    );
  const left = (record.groups ?? []).filter(stillThere);
  for (const group of left) {
    try {
      process.kill(-group.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  // Every process of those groups (serverless offline's children hold its ports) is gone before this start binds them.
  const groups = left.map((g) => g.pid);
  const deadline = Date.now() + 10_000;
  while (anyAliveIn(groups) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  // The system lets go of a killed listener's port a moment after the process is gone.
  for (const port of left.length ? (record.ports ?? []) : [])
    while (!(await portFree(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (left.length)
    log(
      `stopped what a start that was killed left running: ${left.map((g) => `pid ${g.pid} (${g.command.slice(0, 60)})`).join(', ')}`,
    );
  fs.rmSync(file, { force: true });
}

/**
 * Writes down this process, the process groups it started on `dataDir` (each a pid, or `{ pid, role }`) and the
 * ports the stack listens on.
 */
function recordStack(dataDir, groupLeaders, ports) {
  const groups = groupLeaders
    .map((leader) => (typeof leader === 'number' ? { pid: leader } : leader))
    .filter((leader) => leader?.pid)
    .map(({ pid, role }) => known(pid, role));
  const record = { owner: known(process.pid, 'emulators'), groups, ports };
  fs.writeFileSync(path.join(dataDir, RECORD), `${JSON.stringify(record, null, 2)}\n`);
}

/** After a clean stop: nothing is left to take over. */
function forgetStack(dataDir) {
  fs.rmSync(path.join(dataDir, RECORD), { force: true });
}

module.exports = { takeOverDataDir, recordStack, forgetStack };
