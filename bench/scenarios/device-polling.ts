// Device authorization grant (RFC 8628) polling under load: 32 workers on keep-alive connections poll the token
// endpoint with 20 000 pending device codes in turn (each code then sees a poll every few seconds, as devices at the
// 5 s interval would, so most answers are authorization_pending and a few slow_down: both are the same one-row UPDATE).
// Reference: whole local sign-ins (password + TOTP, helpers/sign-ins.ts) against the same server in the same run. A
// poll must cost far less than a sign-in: the ratios are polls per sign-in (rate) and sign-in CPU per poll CPU.
import { randomToken, tokenHash } from '../../src/crypto/primitives.ts';
import { DEVICE_CODE_GRANT } from '../../src/oauth/grants/device-code.ts';
import { userCodeHash } from '../../src/oauth/user-code.ts';
import { makeClient } from '../../test/helpers/oauth-fixtures.ts';
import { form } from '../helpers/oauth.ts';
import { startServer, warmUp } from '../helpers/server.ts';
import { signInLoad } from '../helpers/sign-ins.ts';
import {
  type BenchContext,
  httpRequestsPerSecond,
  median,
  operationsPerSecond,
  type Scenario,
  withServerCpu,
} from '../lib.ts';

const CONCURRENCY = 32;
const CODES = 20_000;

export const scenario: Scenario = {
  name: 'device-polling',
  description: `POST /oauth/token grant_type=${DEVICE_CODE_GRANT} for ${CODES} pending device codes in turn, concurrency ${CONCURRENCY}, keep-alive (answers: authorization_pending, some slow_down); reference: whole local sign-ins (POST /auth/login + /auth/mfa/verify, password + TOTP) on the same server, alternating rounds.`,
  async run(context: BenchContext) {
    const server = await startServer();
    try {
      await warmUp(server);
      const { client } = await makeClient(server.sql, server.secrets.clientSecret, {
        kind: 'native',
        redirectUris: [],
        deviceAuthorizationGrant: true,
      });
      // The codes are inserted directly (the device authorization endpoint is not what is measured).
      const codes = Array.from({ length: CODES }, () => randomToken());
      const now = new Date();
      await server.sql`
        insert into oauth_device_codes (device_code_hash, user_code_hash, client_id, scope, created_at, expires_at,
          interval_seconds)
        select d, u, ${client.id}, 'openid', ${now}, ${new Date(now.getTime() + 3_600_000)}, 5
        from unnest(${codes.map(tokenHash)}::text[], ${codes.map((_, i) => userCodeHash(`BENCH${i}`))}::text[]) as x(d, u)`;
      let next = 0;
      const poll = {
        method: 'POST' as const,
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: () => {
          next = (next + 1) % CODES;
          return form({ grant_type: DEVICE_CODE_GRANT, client_id: client.id, device_code: codes[next] as string });
        },
        expectStatus: 400,
      };
      const polling = (durationMs: number) =>
        withServerCpu(server, () => httpRequestsPerSecond(server.url, poll, CONCURRENCY, durationMs));

      const load = await signInLoad(server, CONCURRENCY);
      const signing = (durationMs: number) =>
        withServerCpu(server, async () => ({
          perSecond: await operationsPerSecond(load.signIn, CONCURRENCY, durationMs),
        }));
      const horizon = Math.max(context.roundMs, context.warmUpMs) / 1000;
      await load.ensureAccounts(200, horizon);
      await signing(context.warmUpMs);
      let errors = (await polling(context.warmUpMs)).errors;

      const polls: number[] = [];
      const pollCpu: number[] = [];
      const signIns: number[] = [];
      const signInCpu: number[] = [];
      for (let round = 0; round < context.rounds; round += 1) {
        const p = await polling(context.roundMs);
        polls.push(p.perSecond);
        pollCpu.push(p.cpuMicrosPerRequest);
        errors += p.errors;
        await load.ensureAccounts(Math.max(...signIns, 50), horizon);
        const s = await signing(context.roundMs);
        signIns.push(s.perSecond);
        signInCpu.push(s.cpuMicrosPerRequest);
      }
      await load.close();
      const [answers] = await server.sql<{ slowed: number; polled: number }[]>`
        select count(*) filter (where interval_seconds > 5)::int as slowed, count(last_polled_at)::int as polled
        from oauth_device_codes where client_id = ${client.id}`;
      return {
        metrics: [
          { name: 'device code polls', unit: 'polls/s', samples: polls },
          { name: 'server CPU per poll', unit: 'µs', samples: pollCpu },
          { name: 'sign-ins (login + verify, password + TOTP)', unit: 'sign-ins/s', samples: signIns },
          { name: 'server CPU per sign-in', unit: 'µs', samples: signInCpu },
        ],
        ratios: [
          { name: 'polls/s ÷ sign-ins/s', value: median(polls) / median(signIns), target: { atLeast: 10 } },
          {
            name: 'server CPU per sign-in ÷ server CPU per poll',
            value: median(signInCpu) / median(pollCpu),
            target: { atLeast: 10 },
          },
        ],
        notes: [
          `${errors} polls answered other than 400; ${answers?.polled ?? 0} of ${CODES} codes polled, ${answers?.slowed ?? 0} of them told slow_down at least once.`,
        ],
      };
    } finally {
      await server.stop();
    }
  },
};
