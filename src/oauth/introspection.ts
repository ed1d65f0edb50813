// RFC 7662 token introspection for confidential clients. A JWT access token is active when its signature, issuer,
// type and expiry hold, neither it nor its grant was revoked, its grant still exists (a client-credentials token:
// its client still exists), and the caller may see it: the client it was issued to, or a service client provisioned
// for its audience (§4: a token's details are not shown to every client). A refresh token is active when it is the
// live, unrotated token of a live grant and belongs to the asking client. Everything else is {active:false} (§2.2).
//
// Every fact an access token's answer needs (the caller, the verified claims, the token's state) is usually in this
// node's caches, so a request is first answered from them alone, with no promise or await on the way: awaiting the
// same cache hits through nine async functions allocated about 4.5 KB more per request on the benchmark's load, all
// of it for the young generation's scavenges to sweep. Whatever the caches cannot tell goes the awaited way, which
// reads the database (docs/decisions.md "Introspection's ratio").
import { isConfidential } from '../clients/client-rules.ts';
import type { Client } from '../clients/store.ts';
import { tokenHash } from '../crypto/primitives.ts';
import type { Sql } from '../db/pool.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import {
  authenticateCachedClient,
  authenticateClient,
  type ClientAuthDeps,
  type ClientCredentials,
} from './client-auth.ts';
import { InvalidClient } from './errors.ts';
import { tokenParameter } from './form.ts';
import { findRefreshToken } from './refresh-token-store.ts';
import { holdsToken } from './token-holder.ts';
import { accessTokenRef, isAccessTokenCachedLive, isAccessTokenLive } from './token-state.ts';
import type { TokenStateCache } from './token-state-cache.ts';
import type { AccessTokenClaims, AccessTokenVerifier } from './tokens.ts';

const INACTIVE = JSON.stringify({ active: false });
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export interface IntrospectDeps extends ClientAuthDeps {
  sql: Sql;
  tokenStates: TokenStateCache;
  verifier: AccessTokenVerifier;
  issuer: string;
  clock: () => Date;
}

/** An answer as the JSON text the endpoint sends (RFC 7662 §2.2): the active one is built once per token. */
export type IntrospectionAnswer = string;

// The active answer is a function of the verified claims alone, and the verifier hands out one frozen claims object
// per token for as long as it keeps the token: serialized once per token, it is dropped with the claims.
const activeAnswers = new WeakMap<AccessTokenClaims, IntrospectionAnswer>();

function activeAnswer(claims: AccessTokenClaims): IntrospectionAnswer {
  let answer = activeAnswers.get(claims);
  if (answer === undefined) {
    const { active: _ignored, gid: _grant, ...rest } = claims as AccessTokenClaims & { active?: unknown };
    // RFC 9449 §6.2: a DPoP-bound token is introspected as token_type DPoP, its cnf (kept in rest) naming the key.
    answer = JSON.stringify({ ...rest, active: true, token_type: rest.cnf ? 'DPoP' : 'Bearer' });
    activeAnswers.set(claims, answer);
  }
  return answer;
}

type IntrospectionForm = ClientCredentials & { token?: string | undefined };

/**
 * Answers `POST /oauth/introspect`: authenticates the caller (confidential clients only), then introspects the
 * `token` parameter. From the node's caches alone when they know every fact, else awaiting what they do not.
 */
export function answerIntrospection(
  deps: IntrospectDeps,
  form: IntrospectionForm,
  context: AttemptContext,
): IntrospectionAnswer | Promise<IntrospectionAnswer> {
  const cached = authenticateCachedClient(deps, form, context);
  if (cached) return introspectFor(deps, cached, form);
  return authenticateClient(deps, form, context).then((caller) => introspectFor(deps, caller, form));
}

function introspectFor(
  deps: IntrospectDeps,
  caller: Client,
  form: IntrospectionForm,
): IntrospectionAnswer | Promise<IntrospectionAnswer> {
  if (!isConfidential(caller.kind)) throw new InvalidClient('Only confidential clients may introspect tokens');
  const token = tokenParameter(form);
  return introspectCached(deps, caller, token) ?? introspect(deps, caller, token);
}

/** The answer for an access token from the node's caches alone; undefined when they cannot tell. */
function introspectCached(deps: IntrospectDeps, caller: Client, token: string): IntrospectionAnswer | undefined {
  const claims = token.includes('.') ? deps.verifier.cachedClaims(token) : undefined;
  if (!claims) return undefined;
  if (!holdsToken(caller, claims)) return INACTIVE;
  return isAccessTokenCachedLive(deps.tokenStates, accessTokenRef(claims)) ? activeAnswer(claims) : undefined;
}

async function introspect(deps: IntrospectDeps, caller: Client, token: string): Promise<IntrospectionAnswer> {
  // Refresh tokens are base64url and `~`, never dotted; the verifier checks a JWT's full shape (once per token: it
  // caches).
  if (token.includes('.')) {
    const claims = await deps.verifier.verify(token);
    if (!claims || !holdsToken(caller, claims)) return INACTIVE;
    return (await isAccessTokenLive(deps, accessTokenRef(claims))) ? activeAnswer(claims) : INACTIVE;
  }
  // A rotated token is inactive whether its row remains or is gone (refresh-rotation.ts).
  const state = await findRefreshToken(deps.sql, tokenHash(token));
  const now = deps.clock();
  if (
    !state ||
    state.clientId !== caller.id ||
    state.rotatedAt !== null ||
    state.grantRevokedAt !== null ||
    state.expiresAt <= now ||
    state.grantExpiresAt <= now
  )
    return INACTIVE;
  // No token_type: RFC 7662 §2.2 means an RFC 6749 §7.1 access token type, and a refresh token has none.
  return JSON.stringify({
    active: true,
    scope: state.scope,
    client_id: state.clientId,
    sub: state.identityId,
    iss: deps.issuer,
    exp: seconds(state.expiresAt),
  });
}
