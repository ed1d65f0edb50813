// The round trip to a redirect provider, the same for every kind (SPEC.md "Endpoints": /auth/federated/callback):
// start stores a transaction keyed by a fresh `state`, bound to this browser by a cookie and to the provider it was
// started with; the callback takes that transaction exactly once, with the cookie, and only that provider's answer
// can complete it (mix-up defence, RFC 9700 §4.4: an answer from another provider meets another issuer, another
// client and another PKCE verifier, and openid-client checks `iss` per RFC 9207).
import { randomBytes } from 'node:crypto';
import { randomToken, tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import type { Sub } from '../../identity/ids.ts';
import type { FederatedDeps } from './deps.ts';
import type { CallbackParameters, ExternalProfile, FederatedProvider } from './provider.ts';
import {
  consumeFederatedTransaction,
  type FederatedTransaction,
  insertFederatedTransaction,
  type Purpose,
} from './store.ts';

/** Long enough to sign in at the provider (and maybe register there), short enough that a stale tab is useless. */
export const FEDERATED_TRANSACTION_SECONDS = 600;

export interface StartInput {
  providerId: string;
  purpose: Purpose;
  identityId: Sub | null;
  returnTo: string;
}

export interface Started {
  location: URL;
  cookie: string;
  maxAgeSeconds: number;
}

const randomValue = () => randomBytes(32).toString('base64url');

export function offeredProvider(deps: FederatedDeps, id: string): FederatedProvider {
  const provider = deps.providers.get(id);
  if (!provider) throw new GatehouseError('provider_not_available');
  return provider;
}

export async function startRoundTrip(deps: FederatedDeps, input: StartInput): Promise<Started> {
  const provider = offeredProvider(deps, input.providerId);
  // 32 random bytes each, base64url, as openid-client's randomState/randomNonce/randomPKCECodeVerifier make them
  // (RFC 7636 §4.1: a 43-character verifier); not imported from it, so a start does not load the library.
  const trip = {
    state: randomValue(),
    nonce: randomValue(),
    codeVerifier: randomValue(),
  };
  const location = await provider.flow.authorizationUrl(trip).catch((error: unknown) => {
    deps.logFailure(provider.id, error);
    throw new GatehouseError('federated_response_invalid', 'The sign-in provider cannot be reached; try again later.');
  });
  const cookie = randomToken();
  const now = deps.clock();
  await insertFederatedTransaction(deps.sql, {
    stateHash: tokenHash(trip.state),
    cookieHash: tokenHash(cookie),
    provider: provider.id,
    purpose: input.purpose,
    identityId: input.identityId,
    nonce: trip.nonce,
    codeVerifier: trip.codeVerifier,
    returnTo: input.returnTo,
    createdAt: now,
    expiresAt: new Date(now.getTime() + FEDERATED_TRANSACTION_SECONDS * 1000),
  });
  return { location, cookie, maxAgeSeconds: FEDERATED_TRANSACTION_SECONDS };
}

export interface Returned {
  provider: FederatedProvider;
  transaction: FederatedTransaction;
  profile: ExternalProfile;
}

/** Takes the transaction (once, with the browser's cookie) and has its provider verify the answer. */
export async function finishRoundTrip(
  deps: FederatedDeps,
  callback: CallbackParameters,
  cookie: string | null,
): Promise<Returned> {
  const state = callback.params.get('state');
  const transaction =
    state && cookie
      ? await consumeFederatedTransaction(deps.sql, tokenHash(state), tokenHash(cookie), deps.clock())
      : null;
  if (!state || !transaction) throw new GatehouseError('invalid_federated_transaction');
  const provider = offeredProvider(deps, transaction.provider);
  // RFC 6749 §4.1.2.1: the provider refused (the person cancelled, or the client is misconfigured there).
  if (callback.params.has('error')) throw new GatehouseError('federated_denied');
  const trip = { state, nonce: transaction.nonce, codeVerifier: transaction.codeVerifier };
  const profile = await provider.flow.complete(callback, trip).catch((error: unknown) => {
    deps.logFailure(provider.id, error);
    throw new GatehouseError('federated_response_invalid');
  });
  return { provider, transaction, profile };
}
