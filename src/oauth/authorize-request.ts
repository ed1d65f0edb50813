// Validation of an authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1). Two stages, because they fail
// differently: until the client and redirect URI are known good, an error is shown as a page and never redirected
// (RFC 6749 §4.1.2.1); after that, errors go back to the client's redirect URI.

import { matchesRedirectUri } from '../clients/redirect-uri.ts';
import { parseScope } from '../clients/scopes.ts';
import type { Client } from '../clients/store.ts';
import { normalizeEmptyPath } from '../clients/uri-normalization.ts';
import { echoInput, GatehouseError, InvalidRequest } from '../http/errors.ts';
import { hasControlCharacter } from '../http/form-body.ts';
import type { ClientDirectory } from './client-directory.ts';
import { isJwkThumbprint } from './dpop.ts';
import { InvalidClient, InvalidScope } from './errors.ts';
import { isCodeChallenge } from './pkce.ts';
import { parseResources } from './resource-indicators.ts';

/** A stage-one failure: shown as an error page. */
export class UnsafeToRedirect extends Error {
  readonly error: GatehouseError;
  constructor(error: GatehouseError) {
    super(error.message);
    this.error = error;
  }
}

export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  /** Echoed on every redirect to the client when sent; null when not (RFC 6749 §4.1.2). */
  state: string | null;
  /** The validated parameters: the query as received, or a pushed request's parameters (RFC 9126). */
  query: URLSearchParams;
  /** The query as received: the sign-in page returns to it and the consent form carries it. */
  returnQuery: URLSearchParams;
  /** SHA-256 of the pushed request's request_uri the parameters came from; null for a plain request. */
  pushed: string | null;
}

export interface ValidatedRequest extends AuthorizationRequest {
  scopes: string[];
  /** RFC 8707 resource indicators, distinct; checked against the registry by checkRequestedResources. */
  resources: string[];
  nonce: string | null;
  codeChallenge: string;
  prompt: Set<string>;
  maxAge: number | null;
  loginHint: string | null;
  /** RFC 9449 §10: the DPoP key thumbprint the code is bound to (dpop_jkt); null when the request names none. */
  dpopJkt: string | null;
}

const MAX_PARAMETER = 2048;

// RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted from the request."
const sent = (query: URLSearchParams, name: string): string | null => query.get(name) || null;

/** Stage one: a known, non-service client and one of its registered redirect URIs. */
export async function resolveClient(clients: ClientDirectory, query: URLSearchParams): Promise<AuthorizationRequest> {
  const seen = new Set<string>();
  for (const [name, value] of query) {
    // RFC 8707 §2: `resource` is the one parameter that may repeat, once per resource.
    if (seen.has(name) && name !== 'resource')
      throw new UnsafeToRedirect(new InvalidRequest(`Parameter ${echoInput(name)} is included more than once`));
    if (value.length > MAX_PARAMETER)
      throw new UnsafeToRedirect(new InvalidRequest(`Parameter ${echoInput(name)} is too long`));
    seen.add(name);
  }
  const clientId = query.get('client_id');
  if (!clientId) throw new UnsafeToRedirect(new InvalidRequest('client_id is required'));
  const client = await clients.findClient(clientId);
  if (!client || client.kind === 'service')
    throw new UnsafeToRedirect(new InvalidClient('The client_id is not a registered client that may sign users in'));
  const redirectUri = query.get('redirect_uri');
  if (!redirectUri) throw new UnsafeToRedirect(new InvalidRequest('redirect_uri is required'));
  if (!matchesRedirectUri(client.redirectUris, redirectUri, client.kind === 'native'))
    throw new UnsafeToRedirect(new InvalidRequest('redirect_uri is not registered for this client'));
  // Kept as compared, so the code binds it and the token request is compared with it the same way.
  const bound = normalizeEmptyPath(redirectUri);
  return { client, redirectUri: bound, state: sent(query, 'state'), query, returnQuery: query, pushed: null };
}

/** Stage two: everything else; failures are redirected to the client with `error`. */
export function validateRequest(request: AuthorizationRequest): ValidatedRequest {
  const q = request.query;
  for (const [name, value] of q)
    if (hasControlCharacter(value))
      throw new InvalidRequest(`Parameter ${echoInput(name)} contains a control character`);
  if (q.get('response_type') !== 'code')
    throw new GatehouseError('unsupported_response_type', 'response_type must be code');
  // OIDC Core §3.1.2.6 names an error for each (discovery says neither is supported).
  if (q.has('request')) throw new GatehouseError('request_not_supported');
  if (q.has('request_uri')) throw new GatehouseError('request_uri_not_supported');
  // Neither `state` nor `nonce` is required: PKCE, required below, is the CSRF and code-injection defence (RFC 9700
  // §2.1.1), OIDC Core §3.1.2.1 makes `nonce` optional for the code flow, and mainstream clients send neither
  // when the server supports PKCE. Each is bound when sent: `state` is echoed, `nonce` goes into every ID token.
  // PKCE S256 for every client (RFC 9700 §2.1.1): `plain` and a missing challenge are refused alike, each told
  // what to send. Without a method RFC 7636 §4.3 would mean plain, but a client that sent none sent no PKCE at all.
  const method = sent(q, 'code_challenge_method');
  if (method === null)
    throw new InvalidRequest('PKCE S256 is required: send code_challenge with code_challenge_method=S256 (RFC 7636)');
  if (method !== 'S256')
    throw new InvalidRequest(`code_challenge_method must be S256, not ${echoInput(method)}: PKCE S256 is required`);
  const codeChallenge = q.get('code_challenge') ?? '';
  if (!isCodeChallenge(codeChallenge))
    throw new InvalidRequest('code_challenge must be the 43-character BASE64URL(SHA-256(code_verifier))');
  const scopes = parseScope(q.get('scope') ?? undefined);
  if (scopes === null) throw new InvalidScope('scope is malformed');
  const refused = scopes.find((s) => !request.client.scopes.includes(s));
  if (refused !== undefined) throw new InvalidScope(`The client may not request scope ${refused}`);
  const nonce = sent(q, 'nonce');
  const prompt = new Set((q.get('prompt') ?? '').split(' ').filter(Boolean));
  if ([...prompt].some((p) => !['none', 'login', 'consent'].includes(p)))
    throw new InvalidRequest('prompt may only contain none, login and consent');
  if (prompt.has('none') && prompt.size > 1) throw new InvalidRequest('prompt=none cannot be combined');
  const maxAgeText = q.get('max_age');
  if (maxAgeText !== null && !/^\d{1,9}$/.test(maxAgeText))
    throw new InvalidRequest('max_age must be a number of seconds');
  const dpopJkt = sent(q, 'dpop_jkt');
  if (dpopJkt !== null && !isJwkThumbprint(dpopJkt))
    throw new InvalidRequest('dpop_jkt must be the 43-character base64url SHA-256 JWK thumbprint (RFC 7638)');
  return {
    ...request,
    scopes,
    resources: parseResources(q.getAll('resource')),
    nonce,
    codeChallenge,
    prompt,
    maxAge: maxAgeText === null ? null : Number(maxAgeText),
    loginHint: q.get('login_hint'),
    dpopJkt,
  };
}
