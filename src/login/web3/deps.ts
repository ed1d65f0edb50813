import type { Audit } from '../../audit/audit.ts';
import type { Clock } from '../../clock.ts';
import type { Sql } from '../../db/pool.ts';

/** What Sign-In with Ethereum needs, passed in from app.ts. */
export interface EthereumDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  /** The issuer: its host is the message's `domain`, the issuer itself its `uri` (EIP-4361 §"Message fields"). */
  issuer: string;
  /** Offered (enabled and not deferred). Off, every route answers provider_not_available. */
  enabled: boolean;
  /** The accepted EIP-155 chain ids, in the configured order. */
  chainIds: readonly number[];
  /** JSON-RPC node per chain, for smart-contract wallets (EIP-1271, EIP-6492); placeholders are left out. */
  rpcUrls: ReadonlyMap<number, string>;
  /** The human-readable assertion the wallet shows above the message. */
  statement: string;
  /** An unknown wallet may create an identity (self-service sign-up open, as for redirect providers). */
  selfService: boolean;
}

export interface RequestFacts {
  clientIp: string;
  requestId: string;
}

/** What Sign In With Farcaster needs, passed in from app.ts. */
export interface FarcasterDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  /** The issuer: the message's `uri`. */
  issuer: string;
  /** The domain the message must name (providers.farcaster.domain, else the issuer's host). */
  domain: string;
  /** Offered (enabled and not deferred). Off, every route answers provider_not_available. */
  enabled: boolean;
  /** The AuthKit relay's base URL. */
  relayUrl: string;
  /** The OP Mainnet JSON-RPC node that answers the ID registry. */
  rpcUrl: string;
  /** An unknown Farcaster account may create an identity (self-service sign-up open). */
  selfService: boolean;
}
