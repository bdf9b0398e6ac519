/**
 * Local stand-in for the jobStream Function URL: serverless-offline cannot
 * stream responses, so this small server calls the same handler
 * (functions/streams/job-stream.ts) with a Node ServerResponse as the stream.
 */
const http = require('node:http');

/** @param {{ port: number, host?: string, log?: (line: string) => void }} options */
async function startStreamServer({ port, host = '127.0.0.1', log = () => {} }) {
  const { loadTypeScript } = require('../../deploy/manifest.js');
  const { streamJob } = loadTypeScript('functions/streams/job-stream.ts');

  const server = http.createServer((req, res) => {
    // The page that opens the stream is on another origin (the app); EventSource sends no credentials.
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS')
      return res.writeHead(204, { 'access-control-allow-methods': 'GET', 'access-control-allow-headers': '*' }).end();
    if (req.method !== 'GET') return res.writeHead(405).end();
    const rawPath = new URL(req.url, 'http://localhost').pathname;
    streamJob({ rawPath }, res).catch((err) => {
      log(`stream failed: ${err.message}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    url: `http://localhost:${server.address().port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

module.exports = { startStreamServer };
