// What both ceremonies share: challenge ids, the 5-minute lifetime and the availability rule.
import { randomBytes } from 'node:crypto';
import { GatehouseError } from '../../http/errors.ts';
import type { PasskeyDeps } from './deps.ts';

/** Long enough to find a security key or unlock a phone; short enough that a stolen challenge soon dies. */
export const CEREMONY_SECONDS = 300;

export const newChallengeId = () => `pkc_${randomBytes(16).toString('base64url')}`;

export const expiresAt = (now: Date) => new Date(now.getTime() + CEREMONY_SECONDS * 1000);

export function assertPasskeysAvailable(deps: Pick<PasskeyDeps, 'unavailable'>): void {
  if (deps.unavailable !== null) throw new GatehouseError('passkeys_disabled');
}

/**
 * The WebAuthn library, loaded on the first ceremony rather than at startup: with its ASN.1 and certificate
 * packages it costs several MB resident on every node, most of which never see a passkey (as qrcode in
 * src/login/local/routes.ts). Loading it late also keeps its @peculiar/asn1 copies from being registered before
 * the test helpers' own certificate library loads, which otherwise breaks the latter.
 */
export const webauthn = () => import('@simplewebauthn/server');
