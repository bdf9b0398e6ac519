/**
 * `npm run fakes`: the fake estimation platform and claims platform on fixed
 * ports, with one key and one token registered, for trying the sends on
 * `npm start` (README: Local demo of the sends). Ctrl-C stops them.
 */
const { loadTypeScript } = require('../../functions/manifest');

const ESTIMATION_PORT = Number(process.env.FAKE_ESTIMATION_PORT || 4020);
const CLAIMS_PLATFORM_PORT = Number(process.env.FAKE_CLAIMS_PLATFORM_PORT || 4021);
const KEY = 'local-estimation-key';
const TOKEN = 'local-team-token';

async function main() {
  const { startFakeEstimationPlatform } = loadTypeScript('tests/fakes/estimation-platform-server.ts');
  const { startFakeClaimsPlatform } = loadTypeScript('tests/fakes/claims-platform-server.ts');
  const estimation = await startFakeEstimationPlatform({ port: ESTIMATION_PORT });
  const claimsPlatform = await startFakeClaimsPlatform({ port: CLAIMS_PLATFORM_PORT });
  await estimation.registerKey(KEY);
  await claimsPlatform.registerToken(TOKEN);
  process.stdout.write(
    [
      `fake estimation platform at ${estimation.url} (key ${KEY}); fake claims platform at ${claimsPlatform.url} (token ${TOKEN})`,
      'start the service against them with:',
      `  ESTIMATION_PLATFORM_BASE_URL=${estimation.url} CLAIMS_PLATFORM_BASE_URL=${claimsPlatform.url} \\`,
      `  LOCAL_AUTH_ESTIMATION_KEY=${KEY} LOCAL_AUTH_TEAM_TOKEN=${TOKEN} PUBLIC_BASE_URL=http://localhost:3000 npm start`,
      `what they received: curl ${estimation.url}/__fake/requests  and  curl ${claimsPlatform.url}/__fake/requests`,
      '',
    ].join('\n'),
  );
  const stop = async () => {
    await Promise.all([estimation.close(), claimsPlatform.close()]);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
