/**
 * A pass-through proxy that lets at most `concurrency` requests through to an
 * emulator at once and queues the rest in arrival order. The workers' process
 * reaches DynamoDB Local through it, so a burst of pipeline requests waits here
 * instead of sharing the emulator's threads (and the machine's two cores) with
 * the API's requests, which go straight to the emulator. On AWS the table
 * serves both sides without one waiting on the other; on one machine this is
 * what keeps a read from queueing behind the pipelines.
 *
 * Bytes and headers pass unchanged (the Host header too, which a signature may
 * cover).
 */
const http = require('node:http');

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * @param {{ target: string, concurrency: number }} options
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
async function startFairShareProxy({ target, concurrency }) {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be ≥ 1, not ${concurrency}`);
  const upstream = new URL(target);
  let inFlight = 0;
  /** @type {(() => void)[]} */
  const waiting = [];
  const release = () => {
    inFlight--;
    const next = waiting.shift();
    if (next) next();
  };
  const admitted = () =>
    new Promise((resolve) => {
      const go = () => {
        inFlight++;
        resolve(undefined);
      };
      if (inFlight < concurrency) go();
      else waiting.push(go);
    });

  const server = http.createServer(async (req, res) => {
    await admitted();
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      release();
    };
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', done);
        answer.on('error', done);
      },
    );
    forwarded.on('error', (err) => {
      done();
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`fair-share proxy: ${err.message}`);
    });
    // A caller that goes away takes its emulator request with it, and frees its place.
    res.on('close', () => {
      if (!res.writableFinished) forwarded.destroy();
      done();
    });
    req.pipe(forwarded);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

module.exports = { startFairShareProxy };
