/**
 * The deployment's subscribers to run ends (lib/jobs/run-end-service.ts): the
 * outbound signals, the usage counters and the chat post, in that order.
 * Loaded by every function that can end a run: the workers and the watchdog
 * through lib/pipelines/index.ts, every HTTP endpoint through
 * lib/api/endpoint.ts (a Cancel, a dismissal or an upload's end can end one).
 * A packaging check holds every bundle that publishes run ends to load it.
 */
import { postRunOutcome } from './outcome-chat-service';
import { subscribeToRunEnds } from '../jobs/run-end-service';
import { signalRunEnd } from '../orchestrator/signals';
import { countRunEnd } from './run-end-count-service';

subscribeToRunEnds('signals', signalRunEnd);
subscribeToRunEnds('usage-counters', countRunEnd);
subscribeToRunEnds('chat', postRunOutcome);
