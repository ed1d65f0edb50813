// Shared setup for the OAuth scenarios: a real Gatehouse with a service client, a user with a browser session and a
// helper that runs the authorization code flow for fresh user grants; plus the references measured in the same run.
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { Pool } from 'undici';
import type { Config } from '../../src/config/schema.ts';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import type { TestApp } from '../../test/helpers/app.ts';
import { makeConfig } from '../../test/helpers/config.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../../test/helpers/oauth-fixtures.ts';
import { operationsPerSecond } from '../lib.ts';
import { BENCH_CONFIG, type BenchServer, startServer } from './server.ts';

export interface OAuthBench {
  server: BenchServer;
  service: { clientId: string; secret: string; audience: string };
  web: { clientId: string; secret: string };
  /** Runs authorize + code exchange; returns the token response. */
  userGrant(): Promise<{ access_token: string; refresh_token: string }>;
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function startOAuthBench(): Promise<OAuthBench> {
  const server = await startServer(makeConfig(BENCH_CONFIG) as Config);
  const { sql, secrets, config } = server.deps;
  const fixtureApp = { sql, config, clock: { now: () => new Date() } } as unknown as TestApp;
  const service = await makeServiceClient(sql, secrets.clientSecret, ['read', 'write']);
  const web = await makeClient(sql, secrets.clientSecret);
  const { cookie } = await makeSession(fixtureApp, await makeIdentity(sql));
  const app = server.built.app;
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
      const authorized = await app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, headers: { cookie } });
      const code = new URL(authorized.headers.location as string).searchParams.get('code') as string;
      const token = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: FORM,
        payload: form({
          grant_type: 'authorization_code',
          client_id: web.client.id,
          client_secret: web.secret as string,
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
      });
      return JSON.parse(token.body);
    },
  };
}

/** The reference: RS256 JWT signatures per second in this process (jose, a cached key, concurrency 32). */
export async function rawSigningRate(pem: string, durationMs: number): Promise<number> {
  const key = createPrivateKey(pem);
  const claims = { sub: 'cli_x', client_id: 'cli_x', scope: 'read', aud: 'https://api.example.test/', jti: 'j' };
  return operationsPerSecond(
    () =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k' })
        .setIssuer('http://localhost:8080')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(key),
    32,
    durationMs,
  );
}

/** Keep-alive load where each request depends on the previous response of the same worker (refresh chains). */
export async function chainedRequestsPerSecond(
  origin: string,
  chains: string[],
  request: (state: string) => { path: string; body: string },
  next: (body: Record<string, unknown>) => string,
  durationMs: number,
): Promise<{ perSecond: number; errors: number; chains: string[] }> {
  const pool = new Pool(origin, { connections: chains.length, pipelining: 1 });
  const state = [...chains];
  let errors = 0;
  let completed = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(
    state.map(async (_initial, i) => {
      while (performance.now() < deadline) {
        const { path, body } = request(state[i] as string);
        const response = await pool.request({ method: 'POST', path, headers: FORM, body });
        const json = (await response.body.json()) as Record<string, unknown>;
        if (response.statusCode !== 200) errors += 1;
        else state[i] = next(json);
        completed += 1;
      }
    }),
  );
  await pool.close();
  return { perSecond: completed / ((performance.now() - start) / 1000), errors, chains: state };
}

export const rssMegabytes = () => process.memoryUsage().rss / 2 ** 20;
