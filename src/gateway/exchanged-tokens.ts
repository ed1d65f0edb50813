// The token a route with exchange_audience forwards instead of the presented one (docs/gateway.md "Forwarding an
// exchanged token"): exchanged (RFC 8693, src/oauth/token-exchange.ts) as gateway.token_exchange_client_id, for the
// route's API, so the upstream never holds a token valid anywhere else.
//
// One exchange serves every request of one caller token to one audience: it is kept per (presented token, audience)
// until shortly before it expires, in bounded memory. The presented token was judged live on this very request (the
// route policy), and the kept token is checked against the node's token state too (its jti, and its client, which
// must still exist and still be allowed the audience), so a revocation ends its use as it ends the presented token's:
// at once on every node through the NOTIFY-invalidated cache. Concurrent first requests share one exchange.
import type { Audit } from '../audit/audit.ts';
import { isConfidential } from '../clients/client-rules.ts';
import type { Client } from '../clients/store.ts';
import type { Sql } from '../db/pool.ts';
import { GatehouseError } from '../http/errors.ts';
import { BoundedMap } from '../oauth/bounded-map.ts';
import type { ClientDirectory } from '../oauth/client-directory.ts';
import { UnauthorizedClient } from '../oauth/errors.ts';
import {
  auditedExchange,
  type ExchangedToken,
  exchangeAccessToken,
  requireExchangeAllowed,
} from '../oauth/token-exchange.ts';
import { accessTokenRef, isAccessTokenCachedLive, isAccessTokenLive } from '../oauth/token-state.ts';
import type { TokenStateCache } from '../oauth/token-state-cache.ts';
import type { AccessTokenClaims, AccessTokenVerifier, TokenSigner } from '../oauth/tokens.ts';

/** Caller tokens whose exchanged token a node keeps (about 2.5 KB each: both tokens and the claims). */
const KEPT = 5_000;
/** An exchanged token is exchanged anew this long before it expires, so the upstream never gets one about to. */
const RENEW_BEFORE_SECONDS = 30;
/** The end of a presented token's signature: distinct per token (tokens.ts does the same), compared whole on a hit. */
const KEY_LENGTH = 32;

export interface ExchangedTokensDeps {
  sql: Sql;
  tokenStates: TokenStateCache;
  clients: ClientDirectory;
  signer: TokenSigner;
  /** Verifies the tokens this node exchanged, once each (the verifier caches), to read them back as claims. */
  verifier: AccessTokenVerifier;
  clock: () => Date;
  audit: Pick<Audit, 'record'>;
  /** gateway.token_exchange_client_id. */
  clientId: string;
  /** Told whether a forwarded exchanged token was kept (true) or exchanged for this request (false): metrics. */
  onForward: (reused: boolean) => void;
  /** A refused exchange: the reason goes to the log, the caller gets token_exchange_refused. */
  onRefused: (error: GatehouseError, audience: string) => void;
}

interface Kept {
  presented: string;
  issued: ExchangedToken;
  claims: AccessTokenClaims;
  /** When the exchange could not have lasted longer: the presented token ends then too. */
  capped: boolean;
}

/** Who asked, for the audit record of an exchange. */
export interface ForwardAttempt {
  requestId: string;
  clientIp: string;
}

export interface ExchangedTokens {
  /** The Authorization header value the upstream gets for this request: a token exchanged for `audience`. */
  authorizationFor(
    presented: string,
    claims: AccessTokenClaims,
    audience: string,
    attempt: ForwardAttempt,
  ): Promise<string>;
}

export function createExchangedTokens(deps: ExchangedTokensDeps): ExchangedTokens {
  const kept = new BoundedMap<string, Kept>(KEPT);
  const pending = new Map<string, Promise<Kept>>();
  const now = () => Math.floor(deps.clock().getTime() / 1000);

  async function gatewayClient(): Promise<Client | null> {
    return deps.clients.cachedClient(deps.clientId) ?? (await deps.clients.findClient(deps.clientId));
  }

  /** Still usable: not near its end (unless it ends with the presented token), live, and its client still allowed. */
  async function usable(entry: Kept, audience: string): Promise<boolean> {
    if (!entry.capped && entry.issued.expiresAt - RENEW_BEFORE_SECONDS <= now()) return false;
    if (entry.issued.expiresAt <= now()) return false;
    const client = await gatewayClient();
    if (!client?.tokenExchangeAudiences.includes(audience)) return false;
    const ref = accessTokenRef(entry.claims);
    return isAccessTokenCachedLive(deps.tokenStates, ref) || (await isAccessTokenLive(deps, ref));
  }

  async function exchange(presented: string, subject: AccessTokenClaims, audience: string, attempt: ForwardAttempt) {
    const attempted = { actorId: deps.clientId, via: 'gateway' as const, ...attempt };
    const issued = await auditedExchange(deps.audit, attempted, audience, async () => {
      const actor = await gatewayClient();
      if (!actor) throw new UnauthorizedClient('gateway.token_exchange_client_id names no registered client');
      if (!isConfidential(actor.kind)) throw new UnauthorizedClient('Only confidential clients may exchange tokens');
      requireExchangeAllowed(actor);
      // A DPoP-bound caller token stays bound: the exchanged one to the same key (docs/decisions.md).
      const jkt = subject.cnf?.jkt ?? null;
      return { issued: await exchangeAccessToken(deps, { actor, subject, audience, scopes: [], jkt }), subject };
    });
    const claims = await deps.verifier.verify(issued.accessToken);
    if (!claims) throw new Error('a token this node just signed does not verify');
    return { presented, issued, claims, capped: issued.expiresAt >= subject.exp };
  }

  return {
    async authorizationFor(presented, claims, audience, attempt) {
      const key = `${audience} ${presented.slice(-KEY_LENGTH)}`;
      const hit = kept.get(key);
      let entry: Kept;
      let reused = false;
      if (hit?.presented === presented && (await usable(hit, audience))) {
        entry = hit;
        reused = true;
      } else {
        // Concurrent first requests of one caller token share one exchange (and one audit record).
        const once = `${audience} ${presented}`;
        let exchanging = pending.get(once);
        if (!exchanging) {
          exchanging = exchange(presented, claims, audience, attempt).finally(() => pending.delete(once));
          pending.set(once, exchanging);
        }
        try {
          entry = await exchanging;
        } catch (error) {
          kept.delete(key);
          if (!(error instanceof GatehouseError)) throw error;
          deps.onRefused(error, audience);
          throw new GatehouseError('token_exchange_refused', undefined, { cause: error });
        }
        kept.set(key, entry);
      }
      deps.onForward(reused);
      return `${entry.issued.tokenType} ${entry.issued.accessToken}`;
    },
  };
}
