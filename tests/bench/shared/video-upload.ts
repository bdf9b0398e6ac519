/**
 * A walkthrough video job as the video benchmarks make it: coloured boxes at
 * known times and tone bursts, the fake AI gateway scripted per chunk from the
 * boxes, and the upload through presigned parts as the browser does it.
 */
import { frameName } from '../../../lib/media/extraction-rules';
import { clock } from '../../../lib/pipelines/video/prompt-rules';
import type { startFakeAiGateway } from '../../fakes/ai-gateway-server';
import { modelItem } from '../../support/fake-gateway';
import type { WalkthroughObject } from '../../support/walkthrough';
import type { Api } from '../api';

const COLOURS = ['red', 'green', 'blue', 'yellow', 'magenta', 'cyan'] as const;

/** A box of one colour every 40 s for 5 s, in turn on the left and the right of the room. */
export function walkthroughObjects(length: number): WalkthroughObject[] {
  return Array.from({ length: Math.floor((length - 10) / 40) + 1 }, (_, i) => ({
    colour: COLOURS[i % COLOURS.length],
    from: 5 + i * 40,
    to: 10 + i * 40,
    box: { x: i % 2 ? 0.6 : 0.1, y: 0.3, width: 0.25, height: 0.35 },
  }));
}

/** A 0.4 s tone every 45 s: one word each to the fake speech-to-text provider. */
export function toneBursts(length: number): [number, number][] {
  return Array.from({ length: Math.floor((length - 20) / 45) + 1 }, (_, i) => [15 + i * 45, 15.4 + i * 45]);
}

/**
 * Each chunk's answer scripted from the boxes drawn in it (what the fake's vision mode would see), so the
 * fake does not decode 600 frames on the cores the pipeline is measured on.
 */
export function scriptChunks(
  gateway: Awaited<ReturnType<typeof startFakeAiGateway>>,
  filename: string,
  objects: WalkthroughObject[],
  chunkSeconds: number,
  videoSeconds: number,
): void {
  for (let start = 0; start < videoSeconds; start += chunkSeconds) {
    const seen = objects.filter((o) => o.from >= start && o.from < start + chunkSeconds);
    const items = seen.map((o) => ({
      ...modelItem(`${o.colour[0].toUpperCase()}${o.colour.slice(1)} box`),
      video_time: o.from,
      frame: frameName(o.from),
      box: o.box,
    }));
    gateway.script(`"${filename}" from ${clock(start)} `, [{ items }]);
  }
}

/** init → part URLs → PUT each part to the bucket, as the browser does; returns the upload id. */
export async function uploadParts(
  api: Api,
  roomId: string,
  video: Buffer,
  filename: string,
  kind: 'video' | 'audio' = 'video',
): Promise<string> {
  const init = await api.call('POST', '/api/uploads/init', {
    kind,
    filename,
    room_id: roomId,
    total_size: video.length,
  });
  const chunkSize = init.chunk_size as number;
  const parts = Array.from({ length: init.part_count as number }, (_, i) => i);
  const { urls } = await api.call('POST', `/api/uploads/${init.upload_id}/part-urls`, { parts });
  for (const { index, url, size } of urls as { index: number; url: string; size: number }[]) {
    const put = await fetch(url, { method: 'PUT', body: video.subarray(index * chunkSize, index * chunkSize + size) });
    await put.arrayBuffer();
    if (put.status !== 200) throw new Error(`part ${index} PUT: ${put.status}`);
  }
  return init.upload_id as string;
}
