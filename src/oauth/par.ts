// Pushed authorization requests (RFC 9126): POST /oauth/par validates an authorization request like the
// authorization endpoint would and keeps it behind a one-time `request_uri`; /oauth/authorize?client_id&request_uri
// then runs the pushed parameters and no others (§4). A pushed request must arrive within 60 s, and is spent when it
// produces a code; until then the sign-in and consent round trips carry only client_id and request_uri. A DPoP proof
// with the push binds its code to the proof's key (RFC 9449 §10.1).

import type { Client } from '../clients/store.ts';
import { randomToken, tokenHash } from '../crypto/primitives.ts';
import type { Sql } from '../db/pool.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import { resolveClient, UnsafeToRedirect, validateRequest } from './authorize-request.ts';
import type { ClientAuthDeps } from './client-auth.ts';
import { type DpopBinding, pushedRequestJkt } from './dpop.ts';
import { insertPushedRequest, openPushedRequest } from './pushed-request-store.ts';
import { checkRequestedResources } from './resource-indicators.ts';

export const PAR_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** RFC 9126 §2.2: short, since the client redirects right after pushing. */
export const PAR_TTL_SECONDS = 60;
/** How long an opened pushed request waits for the sign-in and consent it needs before it produces a code. */
const OPEN_SECONDS = 15 * 60;
const CLIENT_PARAMETERS = new Set(['client_id', 'client_secret', 'client_assertion', 'client_assertion_type']);
/** The authorization endpoint's own markers of a return trip (authorize.ts signIn), kept over the pushed ones. */
const RETURN_TRIP = ['login_after', 'login_mac'];

export interface ParDeps extends ClientAuthDeps {
  sql: Sql;
  clock: () => Date;
}

/**
 * Validates and stores a pushed request of the authenticated `client`. `binding` is the key of the request's DPoP proof
 * (RFC 9449 §10.1), checked by the route after the client authenticated; the code the pushed request produces is
 * bound to it, through the stored `dpop_jkt` parameter.
 */
export async function pushAuthorizationRequest(
  deps: ParDeps,
  client: Client,
  form: Record<string, string | undefined>,
  binding: DpopBinding | null,
): Promise<{ request_uri: string; expires_in: number }> {
  const params = new URLSearchParams({ client_id: client.id });
  for (const [name, value] of Object.entries(form))
    if (!CLIENT_PARAMETERS.has(name) && value !== undefined) params.append(name, value);
  if (params.has('request_uri')) throw new InvalidRequest('request_uri cannot be pushed (RFC 9126 §2.1)');
  let request: Awaited<ReturnType<typeof resolveClient>>;
  try {
    request = await resolveClient(deps.clients, params);
  } catch (error) {
    throw error instanceof UnsafeToRedirect ? error.error : error;
  }
  const validated = validateRequest(request);
  await checkRequestedResources(deps.clients, client, validated.resources, validated.scopes);
  const dpopJkt = pushedRequestJkt(validated.dpopJkt, binding);
  if (dpopJkt !== null) params.set('dpop_jkt', dpopJkt);
  const token = randomToken();
  const now = deps.clock();
  await insertPushedRequest(deps.sql, {
    requestUriHash: tokenHash(token),
    clientId: client.id,
    params: params.toString(),
    now,
    expiresAt: new Date(now.getTime() + PAR_TTL_SECONDS * 1000),
  });
  return { request_uri: `${PAR_PREFIX}${token}`, expires_in: PAR_TTL_SECONDS };
}

/**
 * The parameters an authorization request stands for: its own, or those of the pushed request its request_uri names
 * (with the authorization endpoint's return-trip markers). An unknown, expired or spent request_uri is an error page:
 * without its parameters there is no verified redirect URI to send the error to.
 */
export async function expandPushedRequest(
  deps: { sql: Sql; clock: () => Date },
  query: URLSearchParams,
): Promise<{ query: URLSearchParams; pushed: string | null }> {
  const requestUri = query.get('request_uri');
  if (!requestUri?.startsWith(PAR_PREFIX)) return { query, pushed: null };
  const clientId = query.get('client_id');
  if (!clientId) throw new UnsafeToRedirect(new InvalidRequest('client_id is required'));
  const now = deps.clock();
  const hash = tokenHash(requestUri.slice(PAR_PREFIX.length));
  const params = await openPushedRequest(deps.sql, hash, clientId, now, new Date(now.getTime() + OPEN_SECONDS * 1000));
  if (params === null) throw new UnsafeToRedirect(new GatehouseError('invalid_request_uri'));
  const expanded = new URLSearchParams(params);
  if (query.has('login_after')) {
    for (const name of RETURN_TRIP) expanded.set(name, query.get(name) ?? '');
    // The sign-in that login_after records took the place of prompt=login (authorize.ts signIn).
    const prompt = query.get('prompt');
    if (prompt === null) expanded.delete('prompt');
    else expanded.set('prompt', prompt);
  }
  return { query: expanded, pushed: hash };
}
