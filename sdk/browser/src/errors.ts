// One class per failure, each with a literal `code`, so `switch (error.code)` narrows and `instanceof` works too.

export type GatehouseErrorCode =
  | 'missing_transaction'
  | 'state_mismatch'
  | 'issuer_mismatch'
  | 'authorization_error'
  | 'token_error'
  | 'nonce_mismatch'
  | 'invalid_id_token'
  | 'expired'
  | 'userinfo_error'
  | 'discovery_error';

export abstract class GatehouseError extends Error {
  abstract readonly code: GatehouseErrorCode;
  override name = 'GatehouseError';
}

/** The callback arrived without a sign-in this tab started (or it was already handled). */
export class MissingTransaction extends GatehouseError {
  readonly code = 'missing_transaction';
}

/** The callback's `state` is not the one this tab sent: a forged or crossed response (RFC 6749 §10.12). */
export class StateMismatch extends GatehouseError {
  readonly code = 'state_mismatch';
}

/** The callback's `iss` is missing or another issuer's: a mix-up attack (RFC 9207 §2.4). */
export class IssuerMismatch extends GatehouseError {
  readonly code = 'issuer_mismatch';
}

/** The server answered the authorization request with an error (RFC 6749 §4.1.2.1), e.g. `access_denied`. */
export class AuthorizationError extends GatehouseError {
  readonly code = 'authorization_error';
  readonly error: string;
  readonly errorDescription: string | undefined;
  constructor(error: string, errorDescription: string | undefined) {
    super(errorDescription ? `${error}: ${errorDescription}` : error);
    this.error = error;
    this.errorDescription = errorDescription;
  }
}

/** The token endpoint refused (RFC 6749 §5.2): `error` and `error_description` are the server's. */
export class TokenError extends GatehouseError {
  readonly code = 'token_error';
  readonly error: string;
  readonly errorDescription: string | undefined;
  readonly status: number;
  constructor(error: string, errorDescription: string | undefined, status: number) {
    super(errorDescription ? `${error}: ${errorDescription}` : error);
    this.error = error;
    this.errorDescription = errorDescription;
    this.status = status;
  }
}

/** The ID token's `nonce` is not the one this sign-in sent (OIDC Core §3.1.3.7 step 11). */
export class NonceMismatch extends GatehouseError {
  readonly code = 'nonce_mismatch';
}

/** The ID token failed verification: signature, `iss`, `aud`, `azp`, `iat`, `nbf` or `at_hash`. */
export class InvalidIdToken extends GatehouseError {
  readonly code = 'invalid_id_token';
}

/** The ID token's `exp` has passed (beyond the configured clock tolerance). */
export class Expired extends GatehouseError {
  readonly code = 'expired';
}

/** Userinfo refused the access token (RFC 6750 §3.1) or answered something that is not the user's claims. */
export class UserInfoError extends GatehouseError {
  readonly code = 'userinfo_error';
  readonly error: string;
  readonly status: number;
  constructor(error: string, status: number) {
    super(`userinfo: ${error}`);
    this.error = error;
    this.status = status;
  }
}

/** The discovery document could not be read or names another issuer (OIDC Discovery §4.3). */
export class DiscoveryError extends GatehouseError {
  readonly code = 'discovery_error';
}
