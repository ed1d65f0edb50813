// The comparison server, oidc-provider, in a process of its own like the Gatehouse server under test: see
// oidc-provider-process.ts for its configuration.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLIENT_ID = 'bench-service';
const CLIENT_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const ENTRY = fileURLToPath(new URL('./oidc-provider-process.ts', import.meta.url));

export async function startOidcProvider(pem: string, audience: string) {
  const child = fork(ENTRY, [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: {
      ...process.env,
      BENCH_OIDC_PEM: pem,
      BENCH_OIDC_AUDIENCE: audience,
      BENCH_OIDC_CLIENT_ID: CLIENT_ID,
      BENCH_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    },
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url: string }) => resolve(message.url));
    child.once('exit', (code) => reject(new Error(`oidc-provider process exited with ${code}`)));
  });
  return {
    url,
    clientId: CLIENT_ID,
    secret: CLIENT_SECRET,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
