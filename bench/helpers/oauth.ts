// Shared setup for the OAuth scenarios: a Gatehouse server process (server.ts) with a service client, a web
// client, a user with a browser session, and a helper that runs the authorization code flow over HTTP for fresh
// user grants.
import { request } from 'undici';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import type { TestApp } from '../../test/helpers/app.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../../test/helpers/oauth-fixtures.ts';
import { LeanConnection } from './lean-http.ts';
import { type BenchServer, type StartServerOptions, startServer, warmUp } from './server.ts';

export interface OAuthBench {
  server: BenchServer;
  service: { clientId: string; secret: string; audience: string };
  web: { clientId: string; secret: string };
  /** Runs authorize + code exchange over HTTP; returns the token response. */
  userGrant(): Promise<{ access_token: string; refresh_token: string }>;
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function startOAuthBench(options: StartServerOptions = {}): Promise<OAuthBench> {
  const server = await startServer(options);
  const { sql, secrets, config } = server;
  const fixtureApp = { sql, config, clock: { now: () => new Date() } } as unknown as TestApp;
  const service = await makeServiceClient(sql, secrets.clientSecret, ['read', 'write']);
  const web = await makeClient(sql, secrets.clientSecret);
  const { cookie } = await makeSession(fixtureApp, await makeIdentity(sql));
  await warmUp(server);
  return {
    server,
    service: { clientId: service.client.id, secret: service.secret, audience: service.resource.audience },
    web: { clientId: web.client.id, secret: web.secret as string },
    async userGrant() {
      const verifier = 'v'.repeat(43);
      const redirectUri = web.client.redirectUris[0] as string;
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: web.client.id,
        redirect_uri: redirectUri,
        scope: 'openid profile email offline_access',
        code_challenge: s256Challenge(verifier),
        code_challenge_method: 'S256',
        state: 's',
        nonce: 'n',
      });
      const authorized = await request(`${server.url}/oauth/authorize?${query}`, { headers: { cookie } });
      await authorized.body.dump();
      const location = authorized.headers.location;
      if (authorized.statusCode !== 302 || typeof location !== 'string')
        throw new Error(`authorize answered ${authorized.statusCode}`);
      const code = new URL(location).searchParams.get('code') as string;
      const token = await request(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: FORM,
        body: form({
          grant_type: 'authorization_code',
          client_id: web.client.id,
          client_secret: web.secret as string,
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
      });
      if (token.statusCode !== 200) throw new Error(`code exchange answered ${token.statusCode}`);
      return (await token.body.json()) as { access_token: string; refresh_token: string };
    },
  };
}

/**
 * Keep-alive load through the lean client (lean-http.ts): one connection per worker, each running `step` until the
 * deadline. `step` says whether its request completed; only completed requests count toward the rate.
 */
async function leanLoad(
  origin: string,
  workers: number,
  step: (connection: LeanConnection, worker: number) => Promise<boolean>,
  durationMs: number,
): Promise<{ perSecond: number; errors: number }> {
  const connections = await Promise.all(Array.from({ length: workers }, () => LeanConnection.open(origin)));
  let errors = 0;
  let completed = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  try {
    await Promise.all(
      connections.map(async (connection, worker) => {
        while (performance.now() < deadline) {
          if (await step(connection, worker)) completed += 1;
          else errors += 1;
        }
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  return { perSecond: completed / ((performance.now() - start) / 1000), errors };
}

/**
 * The same form POST from `concurrency` workers on keep-alive connections, through the lean client: for a load whose
 * reference is not itself an HTTP load (client credentials against raw signing), where the load generator's CPU,
 * taken from the same two CPUs, would be counted against the server alone. Only 200 responses count.
 */
export function formRequestsPerSecond(
  origin: string,
  path: string,
  body: string,
  concurrency: number,
  durationMs: number,
): Promise<{ perSecond: number; errors: number }> {
  return leanLoad(
    origin,
    concurrency,
    async (connection) => (await connection.postForm(path, body)).status === 200,
    durationMs,
  );
}

/**
 * Keep-alive load where each request depends on the previous response of the same worker (refresh chains), one
 * connection per chain, through the lean client. Only 200 responses count as completed.
 */
export async function chainedRequestsPerSecond(
  origin: string,
  chains: string[],
  request: (state: string) => { path: string; body: string },
  next: (body: Record<string, unknown>) => string,
  durationMs: number,
): Promise<{ perSecond: number; errors: number; chains: string[] }> {
  const state = [...chains];
  const result = await leanLoad(
    origin,
    chains.length,
    async (connection, i) => {
      const { path, body } = request(state[i] as string);
      const response = await connection.postForm(path, body);
      if (response.status !== 200) return false;
      state[i] = next(JSON.parse(response.body) as Record<string, unknown>);
      return true;
    },
    durationMs,
  );
  return { ...result, chains: state };
}
