// The second step by code: a session that a single factor opened for an identity with TOTP (a redirect provider,
// SAML, a wallet, a password of an account whose authenticator is a passkey...) becomes complete at aal2 with a
// TOTP code or a recovery code. Attempts share the sign-in throttle (per account and per IP, counted before the
// check), so a session from a taken-over upstream account cannot be used to guess codes.
//
// The account's counter is, as for password sign-in (src/login/local/lockout.ts), the budget of unknown clients
// only: a browser that finished a second step for this identity before holds a device cookie entry for it
// (known-device.ts, purpose `second-step`) and is charged to a counter of its own. Whoever guesses codes from a
// taken-over upstream account then locks out only browsers that never finished the step; the owner's do not.
import { GatehouseError } from '../../http/errors.ts';
import type { SessionStart } from '../../session/http.ts';
import type { Session } from '../../session/types.ts';
import { findTotpCredential } from '../local/credential-store.ts';
import type { AttemptContext, LocalLoginDeps } from '../local/deps.ts';
import { proveSecondFactor } from '../local/factors.ts';
import { knownDeviceId, rememberDevice } from '../local/known-device.ts';
import { admitAttempt, clearAttempts } from '../local/lockout.ts';
import type { ThrottleKeys } from '../local/store.ts';

export type SecondFactorCode = { totp: string } | { recoveryCode: string };

export interface FinishedSecondStep {
  start: SessionStart;
  /** The browser's device cookie, renewed with this identity's second-step entry. */
  deviceCookie: string;
}

export async function finishSecondFactor(
  deps: LocalLoginDeps,
  context: AttemptContext,
  session: Session,
  code: SecondFactorCode,
  deviceCookie: string | null,
): Promise<FinishedSecondStep> {
  if (session.pending !== 'second_factor') throw new GatehouseError('second_factor_not_pending');
  const id = session.identityId;
  const now = deps.clock();
  const device = knownDeviceId(deps.secrets.signing, deviceCookie, id, now, 'second-step');
  const keys: ThrottleKeys = device
    ? { account: device, ip: context.clientIp, scope: 'device' }
    : { account: `second_factor:${id}`, ip: context.clientIp, scope: 'account' };
  const budget = device ? 'known_device' : 'unknown_clients';
  const admission = await admitAttempt(deps.sql, deps.audit, context, keys, now);
  const factor = await proveSecondFactor(deps, id, await findTotpCredential(deps.sql, id), code, now);
  const audited = { ...context, actor: id, subject: id };
  if (!factor) {
    // A wrong code does not show who typed it (the first factor may be a taken-over upstream account): actor unknown.
    await deps.audit.record({
      event: 'signin.failed',
      ...audited,
      actor: null,
      details: { method: 'second_factor', budget },
    });
    throw 'totp' in code
      ? new GatehouseError('invalid_totp_code')
      : new GatehouseError('invalid_totp_code', 'The recovery code is not correct or was already used.');
  }
  await clearAttempts(deps.sql, keys, now, admission);
  await deps.audit.record({
    event: 'signin.succeeded',
    ...audited,
    details: { method: 'second_factor', second_factor: factor, first: session.amr.join(' '), budget },
  });
  return {
    // "otp" for both (docs/decisions.md "A recovery code signs in with amr ["pwd", "otp"]").
    start: { identityId: id, aal: 'aal2', amr: [...new Set([...session.amr, 'otp'])], authTime: now, pending: null },
    deviceCookie: rememberDevice(deps.secrets.signing, deviceCookie, id, now, 'second-step'),
  };
}
