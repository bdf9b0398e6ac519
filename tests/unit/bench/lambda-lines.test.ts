import { gbSeconds, parseLambdaLine, providerMemoryMb, wholeLines } from '../../bench/ops/lambda-lines';

describe('parseLambdaLine', () => {
  it('reads the function, duration and billed duration of an invocation line', () => {
    expect(
      parseLambdaLine(
        '(λ: photoWorker) RequestId: 0f6a2c1e-8d8b-4c55-9a3e-3c1f5b2d9e10  Duration: 812.34 ms  Billed Duration: 813 ms',
      ),
    ).toEqual({ functionKey: 'photoWorker', durationMs: 812.34, billedMs: 813 });
  });

  it('reads a line with terminal colour codes around its parts', () => {
    const line = '\u001b[90m(λ: api-getJob) RequestId: 1a  Duration: 3.10 ms  Billed Duration: 4 ms\u001b[39m';
    expect(parseLambdaLine(line)).toEqual({ functionKey: 'api-getJob', durationMs: 3.1, billedMs: 4 });
  });

  it('ignores every other line', () => {
    expect(parseLambdaLine('GET /api/jobs/1 (λ: getJob)')).toBeNull();
    expect(parseLambdaLine('')).toBeNull();
  });
});

describe('wholeLines', () => {
  it('hands on whole lines only, joining lines split across chunks', () => {
    const lines: string[] = [];
    const feed = wholeLines((line) => lines.push(line));
    feed('first\nsec');
    feed('ond\r\nthi');
    expect(lines).toEqual(['first', 'second']);
    feed('rd\n');
    expect(lines).toEqual(['first', 'second', 'third']);
  });
});

describe('providerMemoryMb and gbSeconds', () => {
  it("takes the provider's memorySize, not a function's", () => {
    const yml =
      'service: x\nprovider:\n  name: aws\n  memorySize: 512\n  timeout: 29\nfunctions:\n  a:\n    memorySize: 2048\n';
    expect(providerMemoryMb(yml)).toBe(512);
  });

  it("falls back to Lambda's default of 128 MB", () => {
    expect(providerMemoryMb('provider:\n  name: aws\n')).toBe(128);
  });

  it('bills milliseconds at the memory size in GB-seconds', () => {
    expect(gbSeconds(2000, 1024)).toBe(2);
    expect(gbSeconds(1000, 512)).toBe(0.5);
  });
});
