// private_key_jwt (RFC 7523 §2.2 and §3, OIDC Core §9): a client proves itself with a JWT it signed with a key it
// registered. iss and sub are its client_id, aud names this server (the issuer or the token endpoint), exp is near,
// and the jti is used once (the replay store every node shares).
import type { Client } from '../clients/store.ts';
import { tokenHash } from '../crypto/primitives.ts';
import type { ClientKeys } from './client-keys.ts';
import { jose } from './jose-library.ts';
import type { JtiReplayGuard } from './jti-replay-guard.ts';

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** OIDC Core §9 names no list; asymmetric only, as for DPoP. */
export const ASSERTION_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
/** The longest an assertion may be valid for from now: RFC 7523 §3 asks for a short life, and the jti is kept as long. */
const MAX_LIFETIME_SECONDS = 300;
/** How far past `exp` (and before `nbf`/`iat`) an assertion is still accepted, for a client whose clock drifts. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Kept this much longer than an assertion can be accepted, as DPoP proofs are (dpop.ts). */
const REMEMBER_MARGIN_SECONDS = 10;
const MAX_ASSERTION_LENGTH = 8192;

export class AssertionRefused extends Error {}

/** The client an assertion claims to come from (iss), read before anything is verified; null when unreadable. */
export function assertionIssuer(assertion: string): string | null {
  if (assertion.length > MAX_ASSERTION_LENGTH) return null;
  try {
    const iss = jose().decodeJwt(assertion).iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

export interface AssertionDeps {
  usedJtis: JtiReplayGuard;
  issuer: string;
  clock: () => Date;
  clientKeys: ClientKeys;
}

/** Verifies `assertion` for `client`; AssertionRefused says why not (for the log: the client is told only invalid_client). */
export async function verifyClientAssertion(deps: AssertionDeps, client: Client, assertion: string): Promise<void> {
  const keys = deps.clientKeys.keySet(client);
  if (!keys) throw new AssertionRefused('the client has no registered keys');
  const now = deps.clock();
  let payload: { exp?: number; jti?: unknown };
  try {
    ({ payload } = await jose().jwtVerify(assertion, keys, {
      issuer: client.id,
      subject: client.id,
      audience: [deps.issuer, `${deps.issuer}/oauth/token`],
      algorithms: [...ASSERTION_ALGORITHMS],
      requiredClaims: ['exp', 'jti'],
      // A client whose clock runs a few seconds ahead (its nbf, iat) is not refused for it.
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
    }));
  } catch (error) {
    throw new AssertionRefused(`the assertion did not verify: ${(error as Error).message}`);
  }
  const exp = payload.exp as number;
  if (exp > now.getTime() / 1000 + MAX_LIFETIME_SECONDS)
    throw new AssertionRefused(`the assertion expires more than ${MAX_LIFETIME_SECONDS} s from now`);
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti.length === 0) throw new AssertionRefused('the assertion has no jti');
  // Remembered for as long as jwtVerify would still accept the assertion (exp plus the tolerance) and a margin: a key
  // forgotten at exp could be replayed in the tolerance after it, once the replay store's purge had run.
  const acceptedUntil = new Date((exp + CLOCK_TOLERANCE_SECONDS + REMEMBER_MARGIN_SECONDS) * 1000);
  if (!(await deps.usedJtis.consume(`assertion:${client.id}:${tokenHash(jti)}`, acceptedUntil)))
    throw new AssertionRefused('the assertion was already used (jti)');
}
