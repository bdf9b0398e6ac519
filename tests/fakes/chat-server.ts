/** A fake chat incoming-webhook: records every message; can be told to fail. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startFakeChatServer() {
  const messages: any[] = [];
  let failWith: number | null = null;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (failWith) return res.writeHead(failWith).end('unavailable');
      messages.push(JSON.parse(body || '{}'));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/chat`,
    messages,
    failWith(status: number | null) {
      failWith = status;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
