// Local sign-ins as a load (POST /auth/login + POST /auth/mfa/verify, password + TOTP) against a bench server: the
// accounts it signs in to, made ahead of the measured time, and one sign-in per call. Shared by the signin and
// server-workers scenarios.
import { Secret, TOTP } from 'otpauth';
import { Pool } from 'undici';
import { argon2Parameters, hashPassword } from '../../src/crypto/password-hash.ts';
import { normalizeEmail } from '../../src/identity/ids.ts';
import { insertIdentity, insertSignInMethod } from '../../src/identity/store.ts';
import {
  confirmTotp,
  PASSWORD_PROVIDER,
  upsertPasswordCredential,
  upsertPendingTotp,
} from '../../src/login/local/credential-store.ts';
import { newTotpSeed } from '../../src/login/local/totp.ts';
import type { BenchServer } from './server.ts';

export const PASSWORD = 'bench passphrase for sign-in 2026';
const ORIGIN = 'http://localhost:8080';

interface BenchAccount {
  email: string;
  seed: string;
}

export interface SignInLoad {
  /** The password hash every account shares, and the parameters it was made with. */
  phc: string;
  params: ReturnType<typeof argon2Parameters>;
  /** Enough unused accounts for `seconds` at twice `perSecond`, made now (outside any measured time). */
  ensureAccounts(perSecond: number, seconds: number): Promise<void>;
  /** One whole sign-in with the next unused account; throws unless it ends in 200. */
  signIn(): Promise<void>;
  /** Sign-ins done, and accounts made. */
  counts(): { signIns: number; accounts: number };
  close(): Promise<void>;
}

export async function signInLoad(server: BenchServer, concurrency: number): Promise<SignInLoad> {
  const { sql, secrets, config } = server;
  const params = argon2Parameters(config.passwords);
  // Each account signs in at most once per 30 s TOTP step (codes are single use), so every sign-in gets its own
  // account. One hash serves all accounts: salts do not matter to the measurement.
  const phc = await hashPassword(PASSWORD, secrets.passwordPepper, params);
  const accounts: BenchAccount[] = [];
  let next = 0;
  const createAccount = async (i: number) => {
    const email = `bench${i}@acme.test`;
    const sub = await insertIdentity(sql, {
      displayName: `Bench ${i}`,
      assurance: 'ial1',
      email: { address: email, verified: true },
    });
    const { method } = await insertSignInMethod(sql, {
      identityId: sub,
      kind: 'password',
      provider: PASSWORD_PROVIDER,
      externalSubject: normalizeEmail(email),
    });
    await upsertPasswordCredential(sql, method.id, sub, phc);
    const seed = newTotpSeed(secrets.totp, sub);
    await upsertPendingTotp(sql, sub, seed.sealed);
    await confirmTotp(sql, sub, seed.sealed, 0, new Date());
    accounts.push({ email, seed: seed.base32 });
  };
  const pool = new Pool(server.url, { connections: concurrency, pipelining: 1 });
  const headers = { 'content-type': 'application/json', origin: ORIGIN };
  return {
    phc,
    params,
    async ensureAccounts(perSecond, seconds) {
      const target = next + Math.ceil(perSecond * 2 * seconds) + concurrency * 2;
      while (accounts.length < target) {
        const from = accounts.length;
        await Promise.all(Array.from({ length: Math.min(16, target - from) }, (_, k) => createAccount(from + k)));
      }
    },
    async signIn() {
      const account = accounts[next++];
      if (!account) throw new Error(`out of bench accounts after ${accounts.length} sign-ins`);
      const start = await pool.request({
        method: 'POST',
        path: '/auth/login',
        headers,
        body: JSON.stringify({ subject: account.email }),
      });
      const started = (await start.body.json()) as { transaction_id: string; challenge_id: string };
      const cookie = String(start.headers['set-cookie']).split(';')[0] as string;
      const totp = TOTP.generate({ secret: Secret.fromBase32(account.seed), digits: 6, period: 30, algorithm: 'SHA1' });
      const verify = await pool.request({
        method: 'POST',
        path: '/auth/mfa/verify',
        headers: { ...headers, cookie },
        body: JSON.stringify({
          transaction_id: started.transaction_id,
          challenge_id: started.challenge_id,
          password: PASSWORD,
          totp,
        }),
      });
      // A failed sign-in is cheap; counting it would flatter the rate, so the run stops instead.
      if (verify.statusCode !== 200)
        throw new Error(`sign-in failed: ${verify.statusCode} ${await verify.body.text()}`);
      await verify.body.dump();
    },
    counts: () => ({ signIns: next, accounts: accounts.length }),
    close: () => pool.close(),
  };
}
