/**
 * Lambda invocations as serverless offline reports them: one line per
 * successful invocation,
 *
 *   (λ: photoWorker) RequestId: 3f…  Duration: 812.34 ms  Billed Duration: 813 ms
 *
 * and the memory each function is configured with, for GB-seconds.
 */

export interface LambdaInvocation {
  functionKey: string;
  durationMs: number;
  billedMs: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal colour codes serverless offline may add
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;
const INVOCATION_LINE = /\(λ: ([^)\s]+)\) RequestId: \S+\s+Duration: ([\d.]+) ms\s+Billed Duration: (\d+) ms/;

/** The invocation a line of serverless offline's output reports, or null for any other line. */
export function parseLambdaLine(line: string): LambdaInvocation | null {
  const match = INVOCATION_LINE.exec(line.replace(ANSI_ESCAPE, ''));
  if (!match) return null;
  return { functionKey: match[1], durationMs: Number(match[2]), billedMs: Number(match[3]) };
}

/** Feeds whole lines to onLine from output that arrives in arbitrary chunks. */
export function wholeLines(onLine: (line: string) => void): (chunk: string) => void {
  let rest = '';
  return (chunk) => {
    const lines = (rest + chunk).split(/\r?\n/);
    rest = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
}

/** provider.memorySize of serverless.yml (Lambda's own default, 128 MB, when absent). */
export function providerMemoryMb(serverlessYml: string): number {
  const provider = /^provider:\n((?:[ \t].*\n|\n)*)/m.exec(serverlessYml)?.[1] ?? '';
  const memory = /^ {2}memorySize:\s*(\d+)\s*$/m.exec(provider);
  return memory ? Number(memory[1]) : 128;
}

/** Billed milliseconds at `memoryMb` in GB-seconds, as Lambda bills them (1 GB = 1,024 MB). */
export const gbSeconds = (billedMs: number, memoryMb: number) => (billedMs / 1000) * (memoryMb / 1024);
