// Row factories and sign-in steps for identity and local sign-in tests (and the sign-in benchmark).

import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { Config } from '../../src/config/schema.ts';
import { argon2Parameters, hashPassword } from '../../src/crypto/password-hash.ts';
import type { Secrets } from '../../src/crypto/secret-files.ts';
import type { Sql } from '../../src/db/pool.ts';
import { normalizeEmail, type Sub } from '../../src/identity/ids.ts';
import {
  type IdentityAssurance,
  insertIdentity,
  insertSignInMethod,
  upsertMembership,
} from '../../src/identity/store.ts';
import {
  confirmTotp,
  PASSWORD_PROVIDER,
  replaceRecoveryCodes,
  upsertPasswordCredential,
  upsertPendingTotp,
} from '../../src/login/local/credential-store.ts';
import { generateRecoveryCodes, recoveryCodeHash } from '../../src/login/local/recovery-codes.ts';
import { newTotpSeed } from '../../src/login/local/totp.ts';
import { insertSession } from '../../src/session/store.ts';
import type { PendingStep } from '../../src/session/types.ts';

export interface Account {
  sub: Sub;
  email: string;
  password: string;
  /** Base32 TOTP seed, or null when the account has no authenticator. */
  totpSeed: string | null;
  recoveryCodes: string[];
}

export interface AccountOptions {
  email?: string;
  password?: string;
  totp?: boolean;
  roles?: string[];
  organizationId?: string;
  assurance?: IdentityAssurance;
  state?: 'active' | 'suspended';
}

let counter = 0;

export async function makeAccount(
  sql: Sql,
  secrets: Secrets,
  config: Config,
  options: AccountOptions = {},
): Promise<Account> {
  counter += 1;
  const email = options.email ?? `person${counter}-${process.pid}@acme.test`;
  const password = options.password ?? `correct horse battery ${counter}`;
  const sub = await insertIdentity(sql, {
    displayName: `Person ${counter}`,
    assurance: options.assurance ?? 'ial1',
    state: options.state ?? 'active',
    email: { address: email, verified: true },
  });
  if (options.roles) await upsertMembership(sql, options.organizationId ?? config.organization.id, sub, options.roles);
  const { method } = await insertSignInMethod(sql, {
    identityId: sub,
    kind: 'password',
    provider: PASSWORD_PROVIDER,
    externalSubject: normalizeEmail(email),
  });
  const phc = await hashPassword(password, secrets.passwordPepper, argon2Parameters(config.passwords));
  await upsertPasswordCredential(sql, method.id, sub, phc);
  const { totpSeed, recoveryCodes } =
    options.totp !== false ? await enrollTotp(sql, secrets, sub) : { totpSeed: null, recoveryCodes: [] };
  return { sub, email, password, totpSeed, recoveryCodes };
}

/** Gives an identity a confirmed TOTP authenticator and ten recovery codes, as enrollment would. */
export async function enrollTotp(sql: Sql, secrets: Secrets, sub: Sub) {
  const seed = newTotpSeed(secrets.totp, sub);
  await upsertPendingTotp(sql, sub, seed.sealed);
  await confirmTotp(sql, sub, seed.sealed, 0, new Date());
  const recoveryCodes = generateRecoveryCodes();
  await replaceRecoveryCodes(
    sql,
    sub,
    recoveryCodes.map((c) => recoveryCodeHash(secrets.recoveryPepper, sub, c)),
  );
  return { totpSeed: seed.base32, recoveryCodes };
}

export function totpCode(seed: string, at: Date): string {
  return TOTP.generate({
    secret: Secret.fromBase32(seed),
    timestamp: at.getTime(),
    digits: 6,
    period: 30,
    algorithm: 'SHA1',
  });
}

export const ORIGIN = 'http://localhost:8080';
export const JSON_HEADERS = { 'content-type': 'application/json', origin: ORIGIN };

/** `name=value` for a Set-Cookie the response carried, or ''. */
export function cookieFrom(response: LightMyRequestResponse, name: string): string {
  const found = response.cookies.find((c) => c.name === name && c.value !== '');
  return found ? `${name}=${found.value}` : '';
}

export interface InjectOptions {
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export async function startLogin(app: FastifyInstance, subject: string, options: InjectOptions = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { ...JSON_HEADERS, ...options.headers },
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
    payload: { subject },
  });
  const body = response.json() as { transaction_id: string; challenge_id: string; expires_in: number };
  return { response, body, cookie: cookieFrom(response, 'gatehouse_login') };
}

export interface VerifyFields {
  password: string;
  totp?: string;
  recovery_code?: string;
}

/** Starts a login and verifies it; returns the verify response and the session cookie it set (or ''). */
export async function signIn(app: FastifyInstance, subject: string, fields: VerifyFields, options: InjectOptions = {}) {
  const started = await startLogin(app, subject, options);
  const response = await app.inject({
    method: 'POST',
    url: '/auth/mfa/verify',
    headers: {
      ...JSON_HEADERS,
      ...options.headers,
      // The login cookie joins any cookie the browser already sends (e.g. an older session).
      cookie: [options.headers?.cookie, started.cookie].filter(Boolean).join('; '),
    },
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
    payload: { transaction_id: started.body.transaction_id, challenge_id: started.body.challenge_id, ...fields },
  });
  return { response, started, session: cookieFrom(response, 'gatehouse_session') };
}

/** A live session made directly in the store, for guard tests that need a given aal; returns the Cookie header. */
export async function sessionCookieFor(
  sql: Sql,
  identityId: Sub,
  options: { aal: 'aal1' | 'aal2'; pending?: PendingStep | null; now?: Date },
): Promise<string> {
  const now = options.now ?? new Date();
  const { token } = await insertSession(
    sql,
    {
      identityId,
      aal: options.aal,
      amr: options.aal === 'aal2' ? ['pwd', 'otp'] : ['pwd'],
      authTime: now,
      pending: options.pending ?? null,
      clientIp: null,
      userAgent: null,
    },
    { idleSeconds: 3600, absoluteSeconds: 86_400 },
    now,
  );
  return `gatehouse_session=${token}`;
}
