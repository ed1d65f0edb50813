// OAuth error classes, one per RFC 6749/6750/8707 code (STYLE.md "Errors"). The envelope's `error` and
// `error_description` are the RFC 6749 §5.2 members, so standard clients parse them.
import { GatehouseError, type GatehouseErrorOptions } from '../http/errors.ts';

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
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
}

/** RFC 6750 §3.1: Bearer credentials that are malformed are invalid_request (400). */
export class MalformedBearerCredentials extends GatehouseError {
  constructor() {
    const description = 'The Authorization header must be Bearer, a space and one access token';
    super('invalid_request', description, {
      headers: { 'www-authenticate': `Bearer error="invalid_request", error_description="${description}"` },
    });
  }
}

/** RFC 6750 §3: a bearer-token failure names itself in WWW-Authenticate. */
export class InvalidToken extends GatehouseError {
  constructor(description = 'The access token is invalid, expired or revoked') {
    super('invalid_token', description, {
      headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${description}"` },
    });
  }
}

export class InsufficientScope extends GatehouseError {
  constructor(scope: string) {
    const description = `The access token needs the ${scope} scope`;
    super('insufficient_scope', description, {
      headers: {
        'www-authenticate': `Bearer error="insufficient_scope", error_description="${description}", scope="${scope}"`,
      },
    });
  }
}
