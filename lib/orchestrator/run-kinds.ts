/**
 * The run kinds this deployment's engine runs (run-kind.ts): jobs, and the
 * kinds other folders register when their module loads (a claims platform
 * send: lib/sends/claims-platform-run-service.ts, loaded with the pipelines).
 */
import { jobRunKind } from './job-run-kind';
import type { RunContext } from './pipeline';
import type { RunKind, RunRecord } from './run-kind';

/** Every kind the engine runs, by name. */
const kinds = new Map<string, RunKind>([['job', jobRunKind as unknown as RunKind]]);

/** Makes another kind's runs runnable by the engine and watched by the watchdog (at module load, once per kind). */
export function registerRunKind<R extends RunRecord, C extends RunContext>(kind: RunKind<R, C>): void {
  kinds.set(kind.name, kind as unknown as RunKind);
}

/** The registered kind named `name` ('job' when a message names none: messages from before kinds existed). */
export function runKind(name: string | undefined): RunKind | undefined {
  return kinds.get(name ?? 'job');
}

export function runKinds(): RunKind[] {
  return [...kinds.values()];
}
