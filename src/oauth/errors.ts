// OAuth error classes, one per RFC 6749/6750/8707 code (STYLE.md "Errors"). The envelope's `error` and
// `error_description` are the RFC 6749 §5.2 members, so standard clients parse them.
import { GatehouseError, type GatehouseErrorOptions } from '../http/errors.ts';

/**
 * A WWW-Authenticate challenge (RFC 9110 §11.6.1) with quoted-string parameters. Descriptions stay within the
 * characters RFC 6749 §5.2 allows in error_description, which a quoted string holds as they are.
 */
export const challenge = (scheme: string, parameters: Record<string, string>) =>
  `${scheme} ${Object.entries(parameters)
    .map(([name, value]) => `${name}="${value}"`)
    .join(', ')}`;

export class InvalidClient extends GatehouseError {
  constructor(description?: string, options?: GatehouseErrorOptions) {
    super('invalid_client', description, options);
  }
}

export class InvalidGrant extends GatehouseError {
  constructor(description?: string) {
    super('invalid_grant', description);
  }
}

export class UnauthorizedClient extends GatehouseError {
  constructor(description?: string) {
    super('unauthorized_client', description);
  }
}

export class UnsupportedGrantType extends GatehouseError {
  constructor(description?: string) {
    super('unsupported_grant_type', description);
  }
}

export class InvalidScope extends GatehouseError {
  constructor(description?: string) {
    super('invalid_scope', description);
  }
}

export class InvalidTarget extends GatehouseError {
  constructor(description?: string) {
    super('invalid_target', description);
  }
}

/**
 * RFC 6750 §3.1: a request without Bearer credentials gets a bare challenge, with no error code in it. The envelope
 * still has to name an error, and `invalid_token` is the one a client acts on (send a token).
 */
export class MissingBearerToken extends GatehouseError {
  constructor() {
    super('invalid_token', 'Send the access token as Authorization: Bearer <token>', {
      // RFC 9449 §7.1: the DPoP scheme is offered beside Bearer, with the proof algorithms we accept.
      headers: { 'www-authenticate': `Bearer, DPoP algs="${DPOP_CHALLENGE_ALGS}"` },
    });
  }
}

/** RFC 6750 §3.1: Bearer credentials that are malformed are invalid_request (400). */
export class MalformedBearerCredentials extends GatehouseError {
  constructor() {
    const description = 'The Authorization header must be Bearer, a space and one access token';
    super('invalid_request', description, {
      headers: {
        'www-authenticate': challenge('Bearer', { error: 'invalid_request', error_description: description }),
      },
    });
  }
}

/** RFC 6750 §3: a bearer-token failure names itself in WWW-Authenticate. */
export class InvalidToken extends GatehouseError {
  constructor(description = 'The access token is invalid, expired or revoked') {
    super('invalid_token', description, {
      headers: { 'www-authenticate': challenge('Bearer', { error: 'invalid_token', error_description: description }) },
    });
  }
}

export class InsufficientScope extends GatehouseError {
  constructor(scope: string) {
    const description = `The access token needs the ${scope} scope`;
    super('insufficient_scope', description, {
      headers: {
        'www-authenticate': challenge('Bearer', { error: 'insufficient_scope', error_description: description, scope }),
      },
    });
  }
}

/** The algorithms a DPoP challenge names (RFC 9449 §7.1 `algs`). */
export const DPOP_CHALLENGE_ALGS = 'ES256 EdDSA RS256 PS256';

const dpopChallenge = (code: string, description: string) =>
  challenge('DPoP', { error: code, error_description: description, algs: DPOP_CHALLENGE_ALGS });

/**
 * RFC 9449 §5 at the token endpoint (400), §7.1 at a resource (401 with a DPoP challenge): the proof is missing where
 * it is required, malformed, replayed, or does not match the request or the token's key.
 */
export class InvalidDpopProof extends GatehouseError {
  constructor(description: string, at: 'token' | 'resource' = 'token') {
    super(
      'invalid_dpop_proof',
      description,
      at === 'resource'
        ? { status: 401, headers: { 'www-authenticate': dpopChallenge('invalid_dpop_proof', description) } }
        : {},
    );
  }
}

/** RFC 9449 §8 (token endpoint, 400) and §9 (resource, 401): retry with the nonce served in DPoP-Nonce. */
export class UseDpopNonce extends GatehouseError {
  constructor(nonce: string, at: 'token' | 'resource' = 'token') {
    const description = 'Resend the request with a DPoP proof carrying the nonce from the DPoP-Nonce header';
    super(
      'use_dpop_nonce',
      description,
      at === 'resource'
        ? {
            status: 401,
            headers: { 'dpop-nonce': nonce, 'www-authenticate': dpopChallenge('use_dpop_nonce', description) },
          }
        : { headers: { 'dpop-nonce': nonce } },
    );
  }
}

/** RFC 9449 §7.1: a DPoP-scheme failure of the token itself (or a DPoP-bound token sent as a bearer token, §7.2). */
export class InvalidDpopToken extends GatehouseError {
  constructor(description = 'The access token is invalid, expired or revoked') {
    super('invalid_token', description, {
      headers: { 'www-authenticate': dpopChallenge('invalid_token', description) },
    });
  }
}
