// Shared setup for the OAuth scenarios: a Gatehouse server process (server.ts) with a service client, a web
// client, a user with a browser session, and a helper that runs the authorization code flow over HTTP for fresh
// user grants.
import { request } from 'undici';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import type { TestApp } from '../../test/helpers/app.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../../test/helpers/oauth-fixtures.ts';
import { LeanConnection } from './lean-http.ts';
import { type BenchServer, startServer, warmUp } from './server.ts';

export interface OAuthBench {
  server: BenchServer;
  service: { clientId: string; secret: string; audience: string };
  web: { clientId: string; secret: string };
  /** Runs authorize + code exchange over HTTP; returns the token response. */
  userGrant(): Promise<{ access_token: string; refresh_token: string }>;
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function startOAuthBench(options: { compileCacheDir?: string } = {}): Promise<OAuthBench> {
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
 * Keep-alive load where each request depends on the previous response of the same worker (refresh chains), one
 * connection per chain, through the lean client (lean-http.ts). Only 200 responses count as completed.
 */
export async function chainedRequestsPerSecond(
  origin: string,
  chains: string[],
  request: (state: string) => { path: string; body: string },
  next: (body: Record<string, unknown>) => string,
  durationMs: number,
): Promise<{ perSecond: number; errors: number; chains: string[] }> {
  const connections = await Promise.all(chains.map(() => LeanConnection.open(origin)));
  const state = [...chains];
  let errors = 0;
  let completed = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  try {
    await Promise.all(
      connections.map(async (connection, i) => {
        while (performance.now() < deadline) {
          const { path, body } = request(state[i] as string);
          const response = await connection.postForm(path, body);
          if (response.status !== 200) errors += 1;
          else {
            state[i] = next(JSON.parse(response.body) as Record<string, unknown>);
            completed += 1;
          }
        }
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  return { perSecond: completed / ((performance.now() - start) / 1000), errors, chains: state };
}
