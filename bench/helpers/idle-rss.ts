// Run as its own process by the client-credentials scenario: starts one Gatehouse server (nothing else in the
// process: no load generator, no comparison server), lets it settle, and prints its RSS in MB.
import { rssMegabytes, startOAuthBench } from './oauth.ts';

const bench = await startOAuthBench();
await bench.userGrant();
await new Promise((resolve) => setTimeout(resolve, 1000));
(globalThis as { gc?: () => void }).gc?.();
process.stdout.write(`${rssMegabytes().toFixed(1)}\n`);
await bench.server.stop();
