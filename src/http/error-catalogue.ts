// Every error code Gatehouse can put in an envelope, with its HTTP status and the client-safe default text.
// docs/errors.md lists the same codes; src/http/error-catalogue.test.ts fails when the two drift.
// Codes are grouped by the module that raises them so parallel work appends in its own block.

export interface CatalogueEntry {
  readonly status: number;
  readonly description: string;
  /** Whether a specific description may reach the client. Defaults to status < 500: server faults stay generic. */
  readonly expose?: boolean;
}

export const errorCatalogue = {
  // http (any route)
  invalid_request: { status: 400, description: 'The request is malformed or has invalid parameters.' },
  invalid_forwarded_for: {
    status: 400,
    description: 'The request must carry exactly one valid X-Forwarded-For address from the trusted proxy.',
  },
  csrf_rejected: { status: 403, description: 'Cross-site request refused.' },
  not_found: { status: 404, description: 'No such resource.' },
  method_not_allowed: { status: 405, description: 'This method is not allowed on this path.' },
  request_timeout: { status: 408, description: 'The request did not arrive in time.' },
  payload_too_large: { status: 413, description: 'The request body is too large.' },
  uri_too_long: { status: 414, description: 'A part of the request path is too long.' },
  unsupported_media_type: { status: 415, description: 'The request body has an unsupported content type.' },
  expectation_failed: { status: 417, description: 'Only the expectation 100-continue is supported.' },
  headers_too_large: { status: 431, description: 'The request line and headers are too large.' },
  rate_limited: { status: 429, description: 'Too many requests; retry later.' },
  server_error: { status: 500, description: 'The server could not complete the request.' },
  not_ready: { status: 503, description: 'The service is not ready.', expose: true },
  // RFC 6749 §4.1.2.1's code for a server that is temporarily unable to answer: here, PostgreSQL is out of reach
  // (restarting, failing over, or not answering in time). Nothing was changed; the client retries after Retry-After.
  temporarily_unavailable: {
    status: 503,
    description: 'The service cannot reach its database right now; retry shortly.',
    expose: true,
  },

  // identity, sessions, local sign-in
  login_required: { status: 401, description: 'Sign in first.' },
  enrollment_required: { status: 403, description: 'Finish enrolling a second factor first.' },
  second_factor_required: {
    status: 403,
    description: 'Finish signing in with your second factor (authentication code, recovery code or passkey) first.',
  },
  second_factor_not_pending: { status: 409, description: 'This session does not wait for a second factor.' },
  user_verification_required: {
    status: 401,
    description: 'The passkey did not verify you with a PIN or biometric; this sign-in requires it.',
  },
  admin_required: { status: 403, description: 'This requires an active, verified owner signed in with two factors.' },
  invalid_credentials: { status: 401, description: 'The sign-in details are not correct.' },
  invalid_login_transaction: {
    status: 400,
    description: 'This sign-in attempt is unknown, expired, already used or belongs to another browser; start again.',
  },
  invalid_enrollment_token: { status: 400, description: 'The enrollment link is invalid, expired or already used.' },
  weak_password: { status: 400, description: 'The password does not meet the password policy.' },
  invalid_totp_code: { status: 400, description: 'The code is not correct; check the authenticator app and retry.' },
  totp_already_enrolled: { status: 409, description: 'A TOTP authenticator is already enrolled.' },
  totp_enrollment_not_started: { status: 409, description: 'Start TOTP enrollment first.' },
  method_conflict: { status: 409, description: 'This sign-in method belongs to another account.' },
  last_sign_in_method: { status: 409, description: 'The last sign-in method of an account cannot be removed.' },

  // federated sign-in (login/federated)
  provider_not_available: { status: 404, description: 'This sign-in provider is not offered here.' },
  invalid_federated_transaction: {
    status: 400,
    description: 'This sign-in attempt is unknown, expired, already used or belongs to another browser; start again.',
  },
  federated_denied: { status: 400, description: 'The sign-in provider did not sign you in.' },
  federated_response_invalid: {
    status: 400,
    description: "The sign-in provider's answer could not be verified, so it was not accepted; start again.",
  },
  federated_signup_closed: {
    status: 403,
    description: 'No account is linked to this provider account, and new accounts cannot be created here.',
  },
  directory_unavailable: {
    status: 503,
    description:
      'The company directory that checks this sign-in cannot be reached; retry later or ask its administrator.',
    expose: true,
  },
  directory_signup_closed: {
    status: 403,
    description:
      'The directory accepted these details, but no account is linked to them and new accounts cannot be created here.',
  },
  federated_email_in_use: {
    status: 409,
    description: 'An account with this email address already exists; it is never linked automatically.',
  },

  // SAML sign-in (login/saml)
  saml_connection_unknown: { status: 404, description: 'This single sign-on connection is not configured here.' },
  saml_connection_exists: {
    status: 409,
    description: 'A single sign-on connection with this id already exists (in the configuration file or made here).',
  },
  saml_connection_read_only: {
    status: 409,
    description:
      'This single sign-on connection comes from the configuration file ([saml.<id>]): change or remove it there.',
  },
  saml_connection_unavailable: {
    status: 503,
    description:
      "This single sign-on connection cannot be used yet: the identity provider's metadata could not be fetched. Retry later or ask the administrator.",
    expose: true,
  },
  saml_metadata_url_missing: {
    status: 409,
    description: 'This single sign-on connection was not given a metadata URL, so there is nothing to fetch.',
  },
  saml_metadata_unreachable: {
    status: 502,
    description:
      "The identity provider's metadata could not be fetched or read; the connection keeps its last good copy.",
    expose: true,
  },
  saml_request_unknown: {
    status: 400,
    description:
      'This single sign-on answer does not match a sign-in started in this browser, or was already used; start again.',
  },
  saml_response_invalid: {
    status: 400,
    description: "The identity provider's answer could not be verified, so it was not accepted; start again.",
  },
  saml_assertion_replayed: {
    status: 400,
    description: 'This single sign-on assertion was already used; start again.',
  },
  saml_xml_refused: {
    status: 400,
    description: 'The single sign-on answer declares a DTD, which SAML never needs; it was not read.',
  },
  saml_signup_closed: {
    status: 403,
    description: 'No account is linked to this single sign-on account, and new accounts cannot be created here.',
  },

  // passkeys (src/login/passkey)
  passkeys_disabled: { status: 403, description: 'Passkeys are not enabled on this service.' },
  invalid_passkey_registration: {
    status: 400,
    description: 'The passkey could not be registered: the ceremony is unknown, expired, already used or invalid.',
  },
  reauthentication_required: {
    status: 403,
    description:
      'Confirm it is you first: sign in again with any of your sign-in methods, or give your current password.',
  },
  // web3 sign-in (login/web3)
  wallet_message_invalid: {
    status: 400,
    description:
      'This sign-in message is unknown, expired, changed, already used or belongs to another browser; start again.',
  },
  wallet_contract_unverifiable: {
    status: 400,
    description: "This looks like a smart-contract wallet's signature, which this service cannot check for this chain.",
  },
  wallet_signature_invalid: {
    status: 400,
    description: 'The signature does not prove that this wallet signed the message.',
  },
  farcaster_signature_invalid: {
    status: 400,
    description:
      'The message was not signed by the custody address that the Farcaster ID registry holds for this Farcaster account.',
  },
  chain_unavailable: {
    status: 503,
    description: 'The blockchain node that checks this sign-in cannot be reached; retry later.',
    expose: true,
  },
  farcaster_relay_unavailable: {
    status: 503,
    description: 'The Farcaster relay that carries this sign-in cannot be reached; retry later.',
    expose: true,
  },

  // oauth (RFC 6749, 6750, 7009, 7662 codes)
  invalid_client: { status: 401, description: 'Client authentication failed.' },
  invalid_grant: {
    status: 400,
    description: 'The grant is invalid, expired, revoked or was issued to another client.',
  },
  unauthorized_client: { status: 400, description: 'This client may not use this grant type or this token.' },
  unsupported_grant_type: { status: 400, description: 'The grant type is not supported.' },
  unsupported_response_type: { status: 400, description: 'Only response_type=code is supported.' },
  invalid_scope: { status: 400, description: 'The requested scope is invalid or not allowed for this client.' },
  invalid_target: { status: 400, description: 'The requested resource is not allowed for this client.' },
  invalid_token: { status: 401, description: 'The access token is invalid, expired or revoked.' },
  insufficient_scope: { status: 403, description: 'The access token lacks the scope this request needs.' },
  access_denied: { status: 403, description: 'The resource owner denied the request.' },
  consent_required: { status: 400, description: 'The user must consent first; retry without prompt=none.' },
  request_not_supported: { status: 400, description: 'Request objects (the request parameter) are not supported.' },
  invalid_dpop_proof: {
    status: 400,
    description: 'The DPoP proof is missing, invalid, replayed or does not match the request (RFC 9449).',
  },
  use_dpop_nonce: { status: 400, description: 'Retry with a DPoP proof carrying the nonce in the DPoP-Nonce header.' },
  invalid_request_uri: {
    status: 400,
    description: 'The request_uri is unknown, expired, already used or was pushed by another client.',
  },
  request_uri_not_supported: {
    status: 400,
    description: 'Request objects by reference (request_uri) are not supported.',
  },
  // RFC 8628 §3.5: the device authorization grant's polling answers, and the /device page's wrong code.
  authorization_pending: {
    status: 400,
    description: 'The person has not approved or denied the request yet; keep polling at the interval.',
  },
  slow_down: { status: 400, description: 'Polling too fast: the interval grew by 5 seconds; keep polling at it.' },
  expired_token: { status: 400, description: 'The device code has expired; start a new device authorization.' },
  invalid_user_code: {
    status: 400,
    description: 'This code is not valid or has expired. Check the code on your device and type it again.',
  },

  // admin
  application_exists: { status: 409, description: 'An application with this identifier already exists.' },
  resource_exists: { status: 409, description: 'A resource with this audience already exists.' },
  application_in_use: { status: 409, description: 'The application still has clients; delete them first.' },
  resource_in_use: { status: 409, description: 'A client is still provisioned for this resource; update it first.' },
  resource_scope_in_use: {
    status: 409,
    description: 'A client provisioned for this resource still holds a scope the change removes; update it first.',
  },
  application_environment_conflict: {
    status: 409,
    description: 'A client of this application has redirect URIs the new environment does not allow; update it first.',
  },
  last_owner: {
    status: 409,
    description: 'The organization must keep at least one active IAL2 owner; make someone else an owner first.',
  },
  cannot_suspend_self: { status: 409, description: 'You cannot suspend your own account; ask another owner.' },
  invalid_identity_state: { status: 409, description: "The identity's state does not allow this change." },

  // gateway (docs/gateway.md): a request under the protected prefix the route policies refuse, or an upstream fault
  no_route_policy: {
    status: 403,
    description: 'No route policy allows this method and path; it is not forwarded.',
  },
  insufficient_role: {
    status: 403,
    description: 'The signed-in person lacks the organization role this route requires.',
  },
  insufficient_assurance: {
    status: 403,
    description: 'This route requires a higher identity or sign-in assurance level.',
  },
  wrong_audience: { status: 403, description: 'The access token was not issued for this API (audience).' },
  token_exchange_refused: {
    status: 403,
    description:
      'The gateway could not exchange the access token for one this route forwards (token exchange refused; an administrator can see why).',
  },
  untrusted_caller: {
    status: 403,
    description: 'Only the proxies named in gateway.forward_auth_callers may ask for forward-auth decisions.',
  },
  upstream_unavailable: {
    status: 502,
    description: 'The product service behind the gateway is not reachable or failed; retry later.',
    expose: true,
  },
  upstream_timeout: {
    status: 504,
    description: 'The product service behind the gateway did not answer in time; retry later.',
    expose: true,
  },

  // account self-service and delivery
  self_service_disabled: { status: 403, description: 'Account self-service is not enabled on this service.' },
  delivery_not_configured: {
    status: 503,
    description: 'Verification messages cannot be sent: message delivery is not configured.',
  },
  reauthentication_failed: { status: 403, description: 'The current password or code is not correct.' },
  email_taken: { status: 409, description: 'Another account already signs in with this email address.' },
  totp_not_enrolled: { status: 409, description: 'No TOTP authenticator is enrolled.' },
  verification_invalid: { status: 400, description: 'The verification id or secret is not valid.' },
  verification_expired: { status: 400, description: 'The verification has expired; request a new one.' },
  verification_attempts_exceeded: {
    status: 400,
    description: 'Too many wrong attempts for this verification; request a new one.',
  },
  // The sign-up link's secret was right but the password typed with it is not the sign-up's (docs/account.md).
  signup_password_mismatch: {
    status: 400,
    description:
      'This link belongs to a sign-up with another password. Type the password you chose when you signed up, or ' +
      'choose a new password if this sign-up was not yours.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(errorCatalogue, value);
}
