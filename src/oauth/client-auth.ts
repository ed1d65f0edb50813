// Client authentication at the token, introspection and revocation endpoints (SPEC.md Authentication 3): public
// clients send only client_id; confidential clients send client_id and client_secret in the form body. HTTP Basic
// is not supported, and says so, instead of being half-supported (DESIGN.md "Why our own engine").
import { isConfidential } from '../admin/client-rules.ts';
import type { Client } from '../admin/store.ts';
import type { ClientDirectory } from './client-directory.ts';
import { clientSecretMatches } from './client-secret.ts';
import { InvalidClient } from './errors.ts';

export interface ClientCredentials {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

const AUTH_SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Refuses any Authorization header at the token, introspection and revocation endpoints. RFC 6749 §5.2: a client
 * that tried the header gets 401 with WWW-Authenticate naming the scheme it used; the description says to use the
 * form body instead.
 */
export function rejectAuthorizationHeader(authorization: string | undefined): void {
  if (authorization === undefined) return;
  const used = authorization.trim().split(/\s+/, 1)[0] ?? '';
  const basic = used.toLowerCase() === 'basic' || !AUTH_SCHEME.test(used) || used.length > 32;
  const what = basic ? 'HTTP Basic client authentication' : 'Client authentication in the Authorization header';
  throw new InvalidClient(`${what} is not supported: send client_id and client_secret in the form body`, {
    headers: { 'www-authenticate': `${basic ? 'Basic' : used} realm="gatehouse"` },
  });
}

/** Checks the credentials against a loaded client (null when client_id is unknown). */
function verifyClient(client: Client | null, credentials: ClientCredentials, key: Buffer): Client {
  if (!credentials.client_id) throw new InvalidClient('client_id is required');
  if (!client) throw new InvalidClient('Unknown client or wrong credentials');
  if (!isConfidential(client.kind) || client.secretHmac === null) {
    // RFC 6749 §2.3: a public client has no secret; one sent anyway is a mistake worth refusing.
    if (credentials.client_secret !== undefined) throw new InvalidClient('A public client does not send client_secret');
    return client;
  }
  if (
    credentials.client_secret === undefined ||
    !clientSecretMatches(key, credentials.client_secret, client.secretHmac)
  )
    throw new InvalidClient('Unknown client or wrong credentials');
  return client;
}

export async function authenticateClient(
  clients: ClientDirectory,
  key: Buffer,
  credentials: ClientCredentials,
): Promise<Client> {
  const client = credentials.client_id ? await clients.findClient(credentials.client_id) : null;
  return verifyClient(client, credentials, key);
}
