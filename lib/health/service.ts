/**
 * GET /api/health/pipeline: which mode work runs in, whether a worker has been
 * seen recently, and how much is queued. "worker" means the queues answer;
 * "in-process-fallback" means they do not, and work is handed to the worker
 * functions by direct invoke instead (spec: Processing rules 10).
 */
import { lastWorkerHeartbeat } from '../background/heartbeat-store';
import { queueDepth } from '../queue/queues';

/**
 * A worker seen within this window counts as alive. The watchdog pings the
 * stages queue every minute, so a healthy deployment is seen every minute.
 */
const WORKER_ALIVE_WINDOW_MS = 5 * 60_000;

export async function getPipelineHealth(now = new Date()) {
  let mode: 'worker' | 'in-process-fallback' = 'worker';
  let queued = 0;
  try {
    // Stage messages are jobs waiting for (or in) their next stage.
    queued = await queueDepth('stages');
  } catch {
    mode = 'in-process-fallback';
  }
  const lastSeen = await lastWorkerHeartbeat();
  const seenAt = lastSeen ? Date.parse(lastSeen) : 0;
  return {
    mode,
    worker_alive: seenAt > 0 && now.getTime() - seenAt <= WORKER_ALIVE_WINDOW_MS,
    worker_last_seen_at: lastSeen,
    queued_jobs: queued,
  };
}
