// Local sign-in (SPEC.md "Local login"): POST /auth/login starts a cookie-bound transaction, POST /auth/mfa/verify
// checks password plus TOTP or a recovery code against it. Unknown subjects get a decoy transaction, so both steps
// answer with the same status, shape and work whether or not the account exists (DESIGN.md "Enumeration safety").
import { randomBytes } from 'node:crypto';
import { randomToken, tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import { enforceLimit } from '../../http/rate-limit.ts';
import { normalizeEmail } from '../../identity/ids.ts';
import { findSignInMethodOwner } from '../../identity/store.ts';
import type { SessionStart } from '../../session/http.ts';
import { directoryForSubject } from '../ldap/directory.ts';
import { PASSWORD_PROVIDER } from './credential-store.ts';
import type { AttemptContext, LocalLoginDeps } from './deps.ts';
import { checkDirectoryFactors } from './directory-factors.ts';
import { createFactorChecker, type Factors } from './factors.ts';
import { rememberDevice } from './known-device.ts';
import { budgetFor, budgetName, clearAttempts, IP_RULE, refuseIfLocked } from './lockout.ts';
import { consumeLoginAttempt, insertLoginTransaction } from './store.ts';

/** Long enough to find the authenticator app, short enough that a forgotten tab is useless. */
export const LOGIN_TRANSACTION_SECONDS = 600;

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

export interface StartedLogin {
  transactionId: string;
  challengeId: string;
  /** The cookie value binding the transaction to this browser; only its hash is stored. */
  cookie: string;
  expiresIn: number;
}

export interface VerifyInput extends Factors {
  transactionId: string;
  challengeId: string;
  cookie: string | null;
  /** The browser's device cookie (known-device.ts), if it sent one. */
  deviceCookie: string | null;
}

export interface VerifiedSignIn {
  session: SessionStart;
  /** The renewed device cookie after a full sign-in (password and second factor); null otherwise. */
  deviceCookie: string | null;
}

export interface LocalSignIn {
  /** Refused with 429 past the per-IP start limit (config login.starts_per_ip_per_minute). */
  start(context: AttemptContext, subject: string): Promise<StartedLogin>;
  verify(context: AttemptContext, input: VerifyInput): Promise<VerifiedSignIn>;
}

export function createLocalSignIn(deps: LocalLoginDeps): LocalSignIn {
  const checkFactors = createFactorChecker(deps);
  return {
    async start(context, subject) {
      const now = deps.clock();
      // Before any lookup: every start costs a row and a query, known subject or not.
      await enforceLimit(
        deps.sql,
        'login_start',
        context.clientIp,
        { limit: deps.login.starts_per_ip_per_minute, windowSeconds: 60 },
        now,
        'Too many sign-in starts from this address; retry later.',
      );
      const normalized = normalizeEmail(subject);
      const directory = directoryForSubject(deps.directories, normalized);
      const started = {
        transactionId: newId('ltx'),
        challengeId: newId('lch'),
        cookie: randomToken(),
        expiresIn: LOGIN_TRANSACTION_SECONDS,
      };
      await insertLoginTransaction(deps.sql, {
        id: started.transactionId,
        challengeId: started.challengeId,
        cookieHash: tokenHash(started.cookie),
        subject: normalized,
        // A directory's domain never reaches local passwords: the directory alone decides who that subject is.
        identityId: directory ? null : await findSignInMethodOwner(deps.sql, 'password', PASSWORD_PROVIDER, normalized),
        directory: directory?.id ?? null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + LOGIN_TRANSACTION_SECONDS * 1000),
      });
      return started;
    },

    async verify(context, input) {
      const now = deps.clock();
      const match = input.cookie && {
        id: input.transactionId,
        challengeId: input.challengeId,
        cookieHash: tokenHash(input.cookie),
      };
      const budget = await budgetFor(deps.sql, deps.secrets.signing, match || null, input.deviceCookie, now);
      const transaction = match
        ? await consumeLoginAttempt(deps.sql, match, budget, { key: context.clientIp, rule: IP_RULE }, now)
        : null;
      if (!transaction) {
        await deps.audit.record({ event: 'signin.failed', ...context, details: { reason: 'login_transaction' } });
        throw new GatehouseError('invalid_login_transaction');
      }
      const keys = { account: transaction.accountKey, ip: context.clientIp, scope: budget.scope };
      const subject = transaction.identityId;
      const { locksOnFailure } = await refuseIfLocked(deps.audit, context, transaction, budget);
      const outcome = transaction.directory
        ? await checkDirectoryFactors(deps, deps.audit, context, transaction.directory, transaction.subject, input, now)
        : await checkFactors(subject, input, now);
      if (!outcome) {
        const details = { subject: transaction.subject, reason: 'credentials', budget: budgetName(budget) };
        // Whoever typed the password is unknown (not signed in); the account they tried is the subject.
        await deps.audit.record({ event: 'signin.failed', ...context, actor: null, subject, details });
        if (locksOnFailure) await deps.audit.record({ event: 'signin.locked', ...context, subject, details });
        throw new GatehouseError('invalid_credentials');
      }
      await clearAttempts(deps.sql, keys, now, transaction.admission);
      const { factor, ...start } = outcome;
      await deps.audit.record({
        event: 'signin.succeeded',
        ...context,
        actor: outcome.identityId,
        subject: outcome.identityId,
        details: {
          method: transaction.directory ? 'ldap' : 'password',
          ...(transaction.directory ? { directory: transaction.directory } : {}),
          second_factor: factor,
          aal: outcome.aal,
        },
      });
      // OWASP device cookies: only a full sign-in makes this browser known for the subject.
      const deviceCookie =
        outcome.aal === 'aal2'
          ? rememberDevice(deps.secrets.signing, input.deviceCookie, transaction.subject, now)
          : null;
      return { session: { ...start, authTime: now }, deviceCookie };
    },
  };
}
