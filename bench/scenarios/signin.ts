// Local sign-in throughput: POST /auth/login + POST /auth/mfa/verify (password + TOTP) over keep-alive HTTP, many
// accounts, concurrently; against raw argon2id verifications with the same parameters and concurrency, measured
// in the same run by a process doing nothing else. argon2id is the designed cost of a sign-in, so the ratio shows
// what everything else costs. The server under test runs in its own process (helpers/server.ts).
import { startReferenceProcess } from '../helpers/reference.ts';
import { startServer, warmUp } from '../helpers/server.ts';
import { PASSWORD, signInLoad } from '../helpers/sign-ins.ts';
import { median, operationsPerSecond, type Scenario } from '../lib.ts';

const CONCURRENCY = Number(process.env.BENCH_SIGNIN_CONCURRENCY ?? 32);

export const scenario: Scenario = {
  name: 'signin',
  description: `POST /auth/login + POST /auth/mfa/verify (password + TOTP), distinct accounts, concurrency ${CONCURRENCY}, keep-alive; versus raw crypto.argon2 verifications at the same parameters and concurrency, in a process doing nothing else.`,
  async run(context) {
    const server = await startServer();
    const reference = await startReferenceProcess();
    try {
      await warmUp(server);
      const load = await signInLoad(server, CONCURRENCY);
      const { phc, params } = load;
      // Enough unused accounts for one round at twice the fastest rate seen so far (sign-ins or the raw ceiling,
      // which is measured first in every round), topped up between rounds, outside the measured time.
      const ensureAccounts = (perSecond: number) =>
        load.ensureAccounts(perSecond, Math.max(context.roundMs, context.warmUpMs) / 1000);
      const signIn = load.signIn;
      // Rounds alternate between the two measurements, so load from other work on the machine hits both alike.
      const verifications = (durationMs: number) =>
        reference.measure({
          kind: 'argon2id',
          password: PASSWORD,
          phc,
          pepper: server.secrets.passwordPepper.toString('base64'),
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
      await load.close();
      const { signIns: done, accounts } = load.counts();
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
        notes: [`${done} sign-ins, all 200, each with its own account (${accounts} prepared).`],
      };
    } finally {
      await reference.stop();
      await server.stop();
    }
  },
};
