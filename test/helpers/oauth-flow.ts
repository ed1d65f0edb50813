// Driving the authorization endpoint and the token endpoint through inject, for protocol tests that need precise
// control (the real-client tests use openid-client and oauth4webapi instead).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Client } from '../../src/clients/store.ts';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import type { TestApp } from './app.ts';

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256Challenge(verifier) };
}

export interface AuthorizeInput {
  client: Client;
  cookie: string;
  challenge: string;
  scope?: string;
  redirectUri?: string;
  extra?: Record<string, string>;
  /** Parameters left out of the request altogether (state and nonce are optional). */
  omit?: string[];
}

export function authorizeUrl(input: Omit<AuthorizeInput, 'cookie'>): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: input.client.id,
    redirect_uri: input.redirectUri ?? (input.client.redirectUris[0] as string),
    scope: input.scope ?? 'openid profile email offline_access',
    code_challenge: input.challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    nonce: 'n-456',
    ...input.extra,
  });
  for (const name of input.omit ?? []) query.delete(name);
  return `/oauth/authorize?${query}`;
}

/** Runs the authorization request with a signed-in session and returns the issued code. */
export async function obtainCode(t: TestApp, input: AuthorizeInput): Promise<string> {
  const response = await t.app.inject({ method: 'GET', url: authorizeUrl(input), headers: { cookie: input.cookie } });
  assert.equal(response.statusCode, 302, response.body);
  const location = new URL(response.headers.location as string);
  const code = location.searchParams.get('code');
  assert.ok(code, `no code in ${location}`);
  return code;
}

export async function postForm(t: TestApp, url: string, form: Record<string, string>, headers = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    json: response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {},
  };
}

export interface UserTokens {
  access_token: string;
  id_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
}

/**
 * The authorization code flow for a signed-in session, end to end: authorize, then exchange the code with PKCE and
 * the client's secret. Asserts the exchange succeeded and returns the token response.
 */
export async function userTokens(t: TestApp, input: CodeFlowInput): Promise<UserTokens> {
  const r = await (await authorizedCode(t, input)).exchange();
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json as unknown as UserTokens;
}

export interface CodeFlowInput {
  client: Client;
  secret: string | null;
  cookie: string;
  scope?: string;
  omit?: string[];
}

/**
 * Authorizes with PKCE for a signed-in session and returns `exchange`, which presents that one code at the token
 * endpoint each time it is called (the second call is a reuse).
 */
export async function authorizedCode(t: TestApp, input: CodeFlowInput) {
  const { verifier, challenge } = pkcePair();
  const code = await obtainCode(t, {
    client: input.client,
    cookie: input.cookie,
    challenge,
    scope: input.scope,
    omit: input.omit,
  });
  const exchange = () =>
    postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: input.client.id,
      ...(input.secret ? { client_secret: input.secret } : {}),
      code,
      redirect_uri: input.client.redirectUris[0] as string,
      code_verifier: verifier,
    });
  return { exchange };
}

/** The code exchange over HTTP at a listening issuer, as a web client's backend makes it. */
export async function exchangeCodeAt(
  issuer: string,
  input: { client: Client; secret: string | null; code: string; verifier: string; redirectUri?: string },
) {
  const response = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: input.client.id,
      ...(input.secret ? { client_secret: input.secret } : {}),
      code: input.code,
      redirect_uri: input.redirectUri ?? (input.client.redirectUris[0] as string),
      code_verifier: input.verifier,
    }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** grant_type=refresh_token for a confidential client. */
export function refreshTokens(t: TestApp, client: Client, secret: string | null, refreshToken: string) {
  return postForm(t, '/oauth/token', {
    grant_type: 'refresh_token',
    client_id: client.id,
    ...(secret ? { client_secret: secret } : {}),
    refresh_token: refreshToken,
  });
}

/** Asserts the whole error envelope of a response. */
export function assertEnvelope(
  r: { status: number; json: Record<string, unknown>; headers: Record<string, unknown> },
  status: number,
  error: string,
  description: string,
) {
  assert.equal(r.status, status);
  assert.deepEqual(r.json, { error, error_description: description, request_id: r.headers['x-request-id'] });
  // RFC 6749 §5.1/§5.2: never cached, Pragma included.
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.equal(r.headers.pragma, 'no-cache');
}

/** A client-credentials token request of a service client (makeServiceClient) for its own resource. */
export function clientCredentialsToken(
  t: TestApp,
  service: { client: Client; secret: string; resource: { audience: string } },
  scope = 'read',
) {
  return postForm(t, '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: service.client.id,
    client_secret: service.secret,
    scope,
    resource: service.resource.audience,
  });
}
