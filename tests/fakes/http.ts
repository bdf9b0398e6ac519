/** The HTTP plumbing the fake servers share. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers JSON; returns the status (fakes record how they answered). */
export function sendJson(res: ServerResponse, status: number, body: unknown): number {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return status;
}

export async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function readText(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString('utf8');
}
