// OAuth 2.0 Token Exchange (RFC 8693) for product APIs, as the token endpoint's grant (grants/token-exchange.ts) and
// the gateway (src/gateway/exchanged-tokens.ts) both issue it: a person's access token, already verified and live,
// becomes one for the same person audienced to another registered API, with an `act` claim naming the client that
// exchanged it (docs/oauth.md "Token exchange").
//
// - Which client may exchange for which audience is the client's `token_exchange_audiences` (admin API): none allows
//   nothing (unauthorized_client), an audience not listed is invalid_target.
// - Scope: never wider than what the person's grant holds now, the exchanging client may request (its `scopes`) and
//   the target resource defines. Asked for more is invalid_scope, never silently narrowed; nothing left to grant too.
// - Tied to the originating grant: the new token carries the subject token's `gid`, so revoking the grant (or its
//   refresh token family) ends it as it ends the subject token, on every node through the token state cache. It never
//   outlives the subject token (`exp` is at most the subject's), and it lives only while its client exists.
// - No refresh token: a new exchange needs a live subject token.
import type { Audit } from '../audit/audit.ts';
import { formatScope } from '../clients/scopes.ts';
import type { Client } from '../clients/store.ts';
import type { Sql } from '../db/pool.ts';
import { echoInput, GatehouseError } from '../http/errors.ts';
import type { ClientDirectory } from './client-directory.ts';
import { InvalidGrant, InvalidScope, InvalidTarget, UnauthorizedClient } from './errors.ts';
import { findExchangeableGrant } from './token-exchange-store.ts';
import type { AccessTokenClaims, ActorClaim, TokenSigner } from './tokens.ts';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 8693 §3: the only token type Gatehouse takes as a subject token and issues. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * How many exchanges one chain of delegation may take: an API calling an API calling an API is common, a longer
 * chain is a loop or a design to look at, and each step makes every token of it larger (one nested `act` more).
 */
export const MAX_DELEGATION_DEPTH = 4;

/** Where the exchange was asked for: the token endpoint, or the gateway for a route's upstream. */
export type ExchangeVia = 'token_endpoint' | 'gateway';

export interface ExchangeDeps {
  sql: Sql;
  clients: ClientDirectory;
  signer: TokenSigner;
  clock: () => Date;
  audit: Pick<Audit, 'record'>;
}

export interface ExchangeRequest {
  /** The authenticated client that exchanges, named by the new token's `client_id` and `act`. */
  actor: Client;
  /** The subject token's claims: verified, unexpired and live (its holder's check). */
  subject: AccessTokenClaims;
  /** A registered resource audience, spelled as registered. */
  audience: string;
  /** The scopes asked for; empty asks for everything the exchange allows. */
  scopes: readonly string[];
  /** The DPoP key the new token is bound to (RFC 9449 §6); null for a bearer token. */
  jkt: string | null;
}

export interface ExchangedToken {
  accessToken: string;
  tokenType: 'Bearer' | 'DPoP';
  expiresIn: number;
  /** Epoch seconds. */
  expiresAt: number;
  scope: string;
}

/** Who asked and how, for the audit record of an exchange and of its refusal. */
export interface ExchangeAttempt {
  actorId: string;
  via: ExchangeVia;
  clientIp?: string | null;
  requestId?: string | null;
}

/** RFC 6749 §5.2: a client that no administrator allowed an exchange audience may not use the grant at all. */
export function requireExchangeAllowed(actor: Client): void {
  if (actor.tokenExchangeAudiences.length === 0)
    throw new UnauthorizedClient('The client is not allowed token exchange (token_exchange_audiences is empty)');
}

/** How many actors the subject token's `act` chain names. */
export function delegationDepth(act: ActorClaim | undefined): number {
  let depth = 0;
  for (let actor = act; actor !== undefined; actor = actor.act) depth++;
  return depth;
}

/** A person's token: an identity `sub` and the grant it came from (client-credentials tokens have neither). */
const isPersonToken = (claims: AccessTokenClaims) => claims.sub.startsWith('usr_') && claims.gid !== undefined;

/** The scopes to issue, in the resource's order; refuses a scope asked for that the three sources do not all allow. */
function issuedScopes(grantScope: string, actor: Client, defined: readonly string[], asked: readonly string[]) {
  const granted = grantScope.split(' ');
  const allowed = defined.filter((scope) => granted.includes(scope) && actor.scopes.includes(scope));
  const refused = asked.find((scope) => !allowed.includes(scope));
  if (refused !== undefined)
    throw new InvalidScope(
      `scope ${echoInput(refused)} is not both granted by the person and allowed to this client at this audience`,
    );
  const issued = asked.length > 0 ? allowed.filter((scope) => asked.includes(scope)) : allowed;
  if (issued.length === 0)
    throw new InvalidScope("The person's grant and this client share no scope of this audience: nothing to issue");
  return issued;
}

/** Issues the exchanged token (the actor's grant-level permission already checked, requireExchangeAllowed). */
export async function exchangeAccessToken(deps: ExchangeDeps, request: ExchangeRequest): Promise<ExchangedToken> {
  const { actor, subject, audience } = request;
  if (!actor.tokenExchangeAudiences.includes(audience))
    throw new InvalidTarget('The client may not exchange tokens for this audience');
  const defined = await deps.clients.findResourceScopes(audience);
  if (!defined) throw new InvalidTarget('The audience is not a registered resource');
  if (!isPersonToken(subject))
    throw new InvalidGrant(
      'The subject token has no person behind it (client credentials): only a person’s is exchanged',
    );
  const depth = delegationDepth(subject.act);
  if (depth >= MAX_DELEGATION_DEPTH)
    throw new InvalidGrant(`The subject token was already exchanged ${depth} times: the delegation chain is too long`);
  const grant = await findExchangeableGrant(deps.sql, subject.gid as string);
  if (!grant || grant.identityId !== subject.sub)
    throw new InvalidGrant('The subject token is invalid, expired or revoked');
  const scope = formatScope(issuedScopes(grant.scope, actor, defined, request.scopes));
  // RFC 8693 §4.1: the current actor, with the chain of prior actors nested in it.
  const act: ActorClaim = subject.act ? { sub: actor.id, act: subject.act } : { sub: actor.id };
  const now = Math.floor(deps.clock().getTime() / 1000);
  const expiresAt = Math.min(now + deps.signer.accessTokenTtlSeconds, subject.exp);
  const accessToken = await deps.signer.signAccessToken({
    sub: subject.sub,
    clientId: actor.id,
    audience,
    scope,
    grantId: subject.gid as string,
    ...(typeof subject.auth_time === 'number' ? { authTime: new Date(subject.auth_time * 1000) } : {}),
    ...(typeof subject.acr === 'string' ? { acr: subject.acr } : {}),
    ...(Array.isArray(subject.amr) ? { amr: subject.amr as string[] } : {}),
    ...(request.jkt ? { jkt: request.jkt } : {}),
    act,
    notAfter: subject.exp,
  });
  return {
    accessToken,
    tokenType: request.jkt ? 'DPoP' : 'Bearer',
    expiresIn: expiresAt - now,
    expiresAt,
    scope,
  };
}

/** OAuth codes an exchange is refused with after its client authenticated: each is audited. */
const REFUSALS = new Set([
  'unauthorized_client',
  'invalid_target',
  'invalid_grant',
  'invalid_scope',
  'invalid_request',
  'invalid_dpop_proof',
  'use_dpop_nonce',
]);

/**
 * Runs an exchange and audits its outcome: `oauth.token_exchanged` (actor, the grant, the audience and scope issued)
 * or `oauth.token_exchange_refused` (the code). The tokens themselves are never recorded.
 */
export async function auditedExchange(
  audit: Pick<Audit, 'record'>,
  attempt: ExchangeAttempt,
  audience: string | null,
  exchange: () => Promise<{ issued: ExchangedToken; subject: AccessTokenClaims }>,
): Promise<ExchangedToken> {
  const request = { clientIp: attempt.clientIp ?? null, requestId: attempt.requestId ?? null };
  let outcome: Awaited<ReturnType<typeof exchange>>;
  try {
    outcome = await exchange();
  } catch (error) {
    if (error instanceof GatehouseError && REFUSALS.has(error.code))
      await audit.record({
        event: 'oauth.token_exchange_refused',
        actor: attempt.actorId,
        ...request,
        details: { via: attempt.via, error: error.code, audience },
      });
    throw error;
  }
  const { issued, subject } = outcome;
  await audit.record({
    event: 'oauth.token_exchanged',
    actor: attempt.actorId,
    subject: subject.gid ?? null,
    ...request,
    details: {
      via: attempt.via,
      audience,
      scope: issued.scope,
      subject_client_id: subject.client_id,
      delegation_depth: delegationDepth(subject.act) + 1,
      dpop_bound: issued.tokenType === 'DPoP',
    },
  });
  return issued;
}
