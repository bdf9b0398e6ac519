/**
 * Cases run side by side (it.concurrent) may load a module for the first time
 * after another case of their group has ended: jest's runtime took the end of
 * any case for the end of all of them and refused the load ("You are trying
 * to `require` a file outside of the scope of the test code"), which failed
 * a send test whose billing sweep loaded the Lambda client late. The runtime
 * (tests/support/code-cache-runtime.js) counts the cases still running.
 */
it.concurrent('ends at once', async () => {});

it.concurrent('loads a module for the first time after the other case has ended', async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  const { LATE_LOADED } = await import('./fixtures/late-loaded');
  expect(LATE_LOADED).toBe('loaded');
});
