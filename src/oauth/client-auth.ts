// Client authentication at the token, introspection and revocation endpoints (SPEC.md Authentication 3): public
// clients send only client_id; confidential clients send client_id and client_secret in the form body
// (client_secret_post), or a signed client assertion (private_key_jwt, RFC 7523 §2.2) when they registered keys.
// HTTP Basic is not supported, and says so, instead of being half-supported (DESIGN.md "Why our own engine").
import type { Client } from '../clients/store.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import {
  type AssertionDeps,
  AssertionRefused,
  assertionIssuer,
  JWT_BEARER_ASSERTION,
  verifyClientAssertion,
} from './client-assertion.ts';
import type { ClientDirectory } from './client-directory.ts';
import { clientSecretMatches } from './client-secret.ts';
import type { ClientThrottle } from './client-throttle.ts';
import { challenge, InvalidClient } from './errors.ts';

export interface ClientCredentials {
  client_id?: string | undefined;
  client_secret?: string | undefined;
  client_assertion?: string | undefined;
  client_assertion_type?: string | undefined;
}

const AUTH_SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Refuses any Authorization header at the token, introspection and revocation endpoints. RFC 6749 §5.2: a client
 * that tried the header gets 401 with WWW-Authenticate naming the scheme it used; the description says to use the
 * form body instead and names the client metadata value (RFC 7591 §2) that client libraries take as the option, since
 * several (Auth.js, express-openid-connect) default to client_secret_basic. The challenge also carries `error` and
 * `error_description` (the auth-params RFC 6750 §3 defines; RFC 9110 §11.2 lets any scheme carry more): clients that
 * stop at a challenge, such as oauth4webapi under Auth.js, report only what it says, never the body.
 */
export function rejectAuthorizationHeader(authorization: string | undefined): void {
  if (authorization === undefined) return;
  const used = authorization.trim().split(/\s+/, 1)[0] ?? '';
  const basic = used.toLowerCase() === 'basic' || !AUTH_SCHEME.test(used) || used.length > 32;
  const what = basic ? 'HTTP Basic client authentication' : 'Client authentication in the Authorization header';
  const instead = 'send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)';
  const description = `${what} is not supported: ${instead}`;
  throw new InvalidClient(description, {
    headers: {
      'www-authenticate': challenge(basic ? 'Basic' : used, {
        realm: 'gatehouse',
        error: 'invalid_client',
        error_description: description,
      }),
    },
  });
}

export interface ClientAuthDeps {
  clients: ClientDirectory;
  /** Key of the client-secret HMAC. */
  clientSecretKey: Buffer;
  clientThrottle: ClientThrottle;
  /** What a private_key_jwt client's assertion is checked with. */
  assertions: AssertionDeps;
}

/** The client assertion of the request (RFC 7521 §4.2), or null when it authenticates otherwise. */
function assertionOf(credentials: ClientCredentials): string | null {
  const { client_assertion: assertion, client_assertion_type: type } = credentials;
  if (assertion === undefined && type === undefined) return null;
  if (type !== JWT_BEARER_ASSERTION) throw new InvalidClient(`client_assertion_type must be ${JWT_BEARER_ASSERTION}`);
  if (!assertion) throw new InvalidClient('client_assertion is required with client_assertion_type');
  if (credentials.client_secret !== undefined)
    throw new InvalidClient('Send client_secret or client_assertion, not both');
  return assertion;
}

/** The client the credentials prove, or null when they prove none (unknown client_id, missing or wrong secret). */
function verifyClient(client: Client | null, credentials: ClientCredentials, key: Buffer): Client | null {
  if (!client) return null;
  if (client.tokenEndpointAuthMethod === 'none') {
    // RFC 6749 §2.3: a public client has no secret; one sent anyway is a mistake worth refusing.
    if (credentials.client_secret !== undefined) throw new InvalidClient('A public client does not send client_secret');
    return client;
  }
  // A client with registered keys proves itself only with an assertion (authenticateClient).
  if (client.secretHmac === null) return null;
  const proven =
    credentials.client_secret !== undefined && clientSecretMatches(key, credentials.client_secret, client.secretHmac);
  return proven ? client : null;
}

/**
 * The client the credentials prove against this node's cached copy of it, without a promise: the hot paths'
 * first try. Undefined when only authenticateClient can tell: the client is not cached, or the secret does not
 * match (it may be the new secret of a rotation this node has not seen, and a failure must be counted).
 */
export function authenticateCachedClient(
  deps: ClientAuthDeps,
  credentials: ClientCredentials,
  context: AttemptContext,
): Client | undefined {
  const clientId = credentials.client_id;
  if (!clientId || credentials.client_assertion_type !== undefined) return undefined;
  deps.clientThrottle.refuseIfLocked(clientId, context);
  const cached = deps.clients.cachedClient(clientId);
  return (cached && verifyClient(cached, credentials, deps.clientSecretKey)) ?? undefined;
}

/**
 * Authenticates the client of a token, introspection or revocation request; failures are throttled. A secret that
 * does not match the cached client is checked once more against the database before it counts as a failure: it may
 * be the new secret of a rotation this node has not seen yet.
 */
export async function authenticateClient(
  deps: ClientAuthDeps,
  credentials: ClientCredentials,
  context: AttemptContext,
): Promise<Client> {
  const assertion = assertionOf(credentials);
  // RFC 7523 §3: with an assertion, client_id may be left out; the assertion's iss names the client.
  const clientId = credentials.client_id ?? (assertion === null ? undefined : assertionIssuer(assertion));
  if (!clientId) throw new InvalidClient('client_id is required');
  deps.clientThrottle.refuseIfLocked(clientId, context);
  if (assertion !== null) return authenticateWithAssertion(deps, clientId, assertion, context);
  const cached = await deps.clients.findClient(clientId);
  const client =
    verifyClient(cached, credentials, deps.clientSecretKey) ??
    (cached ? verifyClient(await deps.clients.reloadClient(clientId), credentials, deps.clientSecretKey) : null);
  if (client) return client;
  await deps.clientThrottle.failed(clientId, context);
  throw new InvalidClient('Unknown client or wrong credentials');
}

async function authenticateWithAssertion(
  deps: ClientAuthDeps,
  clientId: string,
  assertion: string,
  context: AttemptContext,
): Promise<Client> {
  const client = await deps.clients.findClient(clientId);
  let refused = 'Unknown client or wrong credentials';
  if (client?.tokenEndpointAuthMethod === 'private_key_jwt') {
    try {
      await verifyClientAssertion(deps.assertions, client, assertion);
      return client;
    } catch (error) {
      if (!(error instanceof AssertionRefused)) throw error;
      refused = `The client assertion was refused: ${error.message}`;
    }
  }
  await deps.clientThrottle.failed(clientId, context);
  throw new InvalidClient(refused);
}
