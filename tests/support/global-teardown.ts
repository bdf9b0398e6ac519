export default async function globalTeardown(): Promise<void> {
  const service = (globalThis as Record<string, unknown>).__LOCAL_SERVICE__ as { stop(): Promise<void> } | undefined;
  if (process.env.TEST_SERVICE_LOG === '1') {
    process.stdout.write(
      ((globalThis as Record<string, unknown>).__LOCAL_SERVICE_OUTPUT__ as string[] | undefined)?.join('') ?? '',
    );
  }
  await service?.stop();
  const fakes = ((globalThis as Record<string, unknown>).__TEST_FAKES__ ?? []) as { stop(): Promise<void> }[];
  await Promise.all(fakes.map((f) => f.stop()));
}
