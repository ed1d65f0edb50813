// Local sign-in throughput: POST /auth/login + POST /auth/mfa/verify (password + TOTP) over keep-alive HTTP, many
// accounts, concurrently; against raw argon2id verifications with the same parameters and concurrency, measured
// in the same run by a process doing nothing else. argon2id is the designed cost of a sign-in, so the ratio shows
// what everything else costs. The server under test runs in its own process (helpers/server.ts).
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
import { startReferenceProcess } from '../helpers/reference.ts';
import { startServer, warmUp } from '../helpers/server.ts';
import { median, operationsPerSecond, type Scenario } from '../lib.ts';

const CONCURRENCY = Number(process.env.BENCH_SIGNIN_CONCURRENCY ?? 32);
const PASSWORD = 'bench passphrase for sign-in 2026';
const ORIGIN = 'http://localhost:8080';

interface BenchAccount {
  email: string;
  seed: string;
}

export const scenario: Scenario = {
  name: 'signin',
  description: `POST /auth/login + POST /auth/mfa/verify (password + TOTP), distinct accounts, concurrency ${CONCURRENCY}, keep-alive; versus raw crypto.argon2 verifications at the same parameters and concurrency, in a process doing nothing else.`,
  async run(context) {
    const server = await startServer();
    const reference = await startReferenceProcess();
    const { sql, secrets, config } = server;
    const params = argon2Parameters(config.passwords);
    try {
      await warmUp(server);
      // Each account signs in at most once per 30 s TOTP step (codes are single use), so every sign-in of the run
      // gets its own account. One hash serves all accounts: salts do not matter to the measurement.
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
      // Enough unused accounts for one round at twice the fastest rate seen so far (sign-ins or the raw ceiling,
      // which is measured first in every round), topped up between rounds, outside the measured time.
      const ensureAccounts = async (perSecond: number) => {
        const seconds = Math.max(context.roundMs, context.warmUpMs) / 1000;
        const target = next + Math.ceil(perSecond * 2 * seconds) + CONCURRENCY * 2;
        while (accounts.length < target) {
          const from = accounts.length;
          await Promise.all(Array.from({ length: Math.min(16, target - from) }, (_, k) => createAccount(from + k)));
        }
      };

      const pool = new Pool(server.url, { connections: CONCURRENCY, pipelining: 1 });
      const headers = { 'content-type': 'application/json', origin: ORIGIN };
      const signIn = async () => {
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
        const totp = TOTP.generate({
          secret: Secret.fromBase32(account.seed),
          digits: 6,
          period: 30,
          algorithm: 'SHA1',
        });
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
      };
      // Rounds alternate between the two measurements, so load from other work on the machine hits both alike.
      const verifications = (durationMs: number) =>
        reference.measure({
          kind: 'argon2id',
          password: PASSWORD,
          phc,
          pepper: secrets.passwordPepper.toString('base64'),
          params,
          concurrency: CONCURRENCY,
          durationMs,
        });
      const signIns: number[] = [];
      const raw: number[] = [];
      const warmUpRate = await verifications(context.warmUpMs);
      await ensureAccounts(warmUpRate);
      await operationsPerSecond(signIn, CONCURRENCY, context.warmUpMs);
      for (let round = 0; round < context.rounds; round += 1) {
        raw.push(await verifications(context.roundMs));
        await ensureAccounts(Math.max(...raw, ...signIns));
        signIns.push(await operationsPerSecond(signIn, CONCURRENCY, context.roundMs));
      }
      await pool.close();
      const ratio = median(signIns) / median(raw);
      return {
        metrics: [
          { name: 'sign-ins (login + verify, password + TOTP)', unit: 'sign-ins/s', samples: signIns },
          {
            name: `raw argon2id verify (m=${params.memoryKib} KiB, t=${params.passes}, p=${params.parallelism})`,
            unit: 'verifications/s',
            samples: raw,
          },
        ],
        ratios: [{ name: 'sign-ins/s ÷ raw argon2id verifications/s', value: ratio, target: { atLeast: 0.85 } }],
        notes: [`${next} sign-ins, all 200, each with its own account (${accounts.length} prepared).`],
      };
    } finally {
      await reference.stop();
      await server.stop();
    }
  },
};
