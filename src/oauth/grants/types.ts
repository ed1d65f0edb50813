// The contract every grant module meets (STYLE.md "One grant per file"): the token route keeps only the declared
// parameters and hands them to `handle`; it knows no grant names.
import type { Audit } from '../../audit/audit.ts';
import type { Sql } from '../../db/pool.ts';
import type { AttemptContext } from '../../login/local/deps.ts';
import type { ClientAuthDeps } from '../client-auth.ts';
import type { DpopBinding } from '../dpop.ts';
import type { TokenStateCache } from '../token-state-cache.ts';
import type { AccessTokenVerifier, TokenSigner } from '../tokens.ts';

export interface GrantDeps extends ClientAuthDeps {
  sql: Sql;
  signer: TokenSigner;
  /** Checks a subject token (token exchange) as introspection checks any access token. */
  verifier: AccessTokenVerifier;
  tokenStates: TokenStateCache;
  issuer: string;
  clock: () => Date;
  /** The signing secret: seals a rotated refresh token's successor for the grace window and MACs token values. */
  sealKey: Buffer;
  audit: Audit;
  lifetimes: {
    refreshIdleSeconds: number;
    refreshAbsoluteSeconds: number;
    refreshGraceSeconds: number;
  };
}

export interface TokenResponse {
  access_token: string;
  /** RFC 9449 §5.1: DPoP for a token bound to the request's proof key. */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
  /** RFC 8693 §2.2.1: what a token exchange issued. */
  issued_token_type?: string;
}

export interface Grant<P extends string = string> {
  grantType: string;
  /** Form parameters this grant reads besides grant_type and client authentication's. */
  parameters: readonly P[];
  handle(
    deps: GrantDeps,
    params: Partial<Record<P | 'client_id' | 'client_secret' | 'client_assertion' | 'client_assertion_type', string>>,
    context: AttemptContext,
    /** The key the request's DPoP proof showed possession of (RFC 9449 §5); null without a proof. */
    binding: DpopBinding | null,
  ): Promise<TokenResponse>;
}
