// Bounded mixed load against Gatehouse nodes behind a load balancer, for the failover tests: lanes of sign-ups
// (capped), sign-ins, authorization code flows, refresh rotations, revocations and admin writes run side by side,
// each one request after the other, until told to stop or their cap. Every request and its answer is recorded with
// its timing, so the test can check afterwards what each 2xx promised and how quickly each failure came.
import type { Client } from '../../src/clients/store.ts';
import { call, type HttpAnswer, setCookie } from './node-http.ts';
import { authorizeUrl, pkcePair } from './oauth-flow.ts';

/** What one lane request asked and what it got. `status` 0: the connection failed; -1: no answer by the timeout. */
export interface Recorded {
  lane: 'signup' | 'signin' | 'authorize' | 'code' | 'refresh' | 'revoke' | 'admin';
  startedAt: number;
  endedAt: number;
  status: number;
  /** The error envelope's `error`, when there was one. */
  error?: string;
  /** Identity id, session cookie, application id, the token sent (refresh, revoke) ... what the 2xx is about. */
  subject?: string;
  /** What a 2xx gave back: the new refresh token, access token. */
  made?: { refresh?: string; access?: string };
  /** An authorization code the code lane obtained (redeemed or not). */
  code?: string;
  verifier?: string;
  /** The whole answer, for the envelope, headers and request id. */
  answer?: HttpAnswer;
}

export interface LoadOptions {
  url: string;
  client: Client;
  secret: string;
  /** Password-only accounts for the sign-in lane. */
  accounts: { email: string; password: string }[];
  /** Browser session cookies for the code lane. */
  sessions: string[];
  adminCookie: string;
  /** Sign-ups stop after this many succeeded: each leaves an identity and a message behind. */
  signupCap: number;
  /** Every request's deadline: a request still unanswered then counts as hung. */
  timeoutMs: number;
}

export interface Load {
  records: Recorded[];
  stop(): Promise<void>;
}

const PAUSE_MS = 20;
const FAILURE_PAUSE_MS = 250;

export function startLoad(o: LoadOptions): Load {
  const records: Recorded[] = [];
  let stopped = false;
  /** Live refresh tokens: code flows add, rotations swap, revocations take. */
  const pool: string[] = [];

  async function timed(
    lane: Recorded['lane'],
    request: () => Promise<HttpAnswer>,
    describe: (answer: HttpAnswer) => Partial<Recorded>,
  ): Promise<Recorded> {
    const startedAt = Date.now();
    let record: Recorded;
    try {
      const answer = await request();
      record = { lane, startedAt, endedAt: Date.now(), status: answer.status, ...describe(answer) };
      if (typeof answer.json.error === 'string') record.error = answer.json.error;
      record.answer = answer;
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      const cause = (error as Error & { cause?: Error }).cause?.message;
      const message = `${(error as Error).message}${cause ? `: ${cause}` : ''}`;
      record = { lane, startedAt, endedAt: Date.now(), status: timedOut ? -1 : 0, error: message };
    }
    records.push(record);
    return record;
  }

  const options = { timeoutMs: o.timeoutMs, forwardedFor: null } as const;

  async function signup(i: number) {
    return await timed(
      'signup',
      () =>
        call(o.url, 'POST', '/account/signup', {
          ...options,
          json: {
            email: `failover${i}@example.test`,
            password: 'violet harbor engine 4417 quill',
            display_name: 'Load',
          },
        }),
      (a) => ({ subject: a.json.identity_id as string }),
    );
  }

  async function signin(i: number) {
    const account = o.accounts[i % o.accounts.length] as { email: string; password: string };
    const started = await timed(
      'signin',
      () => call(o.url, 'POST', '/auth/login', { ...options, json: { subject: account.email } }),
      () => ({}),
    );
    if (started.status !== 200 || !started.answer) return;
    // A start that worked is only the first half: the record that counts is the verify's, whose 2xx is a session.
    records.splice(records.indexOf(started), 1);
    const first = started.answer;
    await timed(
      'signin',
      () =>
        call(o.url, 'POST', '/auth/mfa/verify', {
          ...options,
          headers: { cookie: setCookie(first, 'gatehouse_login') },
          json: {
            transaction_id: first.json.transaction_id,
            challenge_id: first.json.challenge_id,
            password: account.password,
          },
        }),
      (a) => ({ subject: setCookie(a, 'gatehouse_session') }),
    );
  }

  async function codeFlow(i: number) {
    const cookie = o.sessions[i % o.sessions.length] as string;
    const { verifier, challenge } = pkcePair();
    const authorizing = await timed(
      'authorize',
      () => call(o.url, 'GET', authorizeUrl({ client: o.client, challenge }), { ...options, headers: { cookie } }),
      () => ({}),
    );
    const authorized = authorizing.answer;
    if (authorizing.status !== 302 || !authorized) return;
    const redirect = new URL(authorized.headers.get('location') as string);
    const code = redirect.searchParams.get('code');
    // An authorization that failed goes back to the client with an error (RFC 6749, 4.1.2.1): that record stays.
    if (!code) {
      authorizing.error = redirect.searchParams.get('error') ?? 'no code in the redirect';
      return;
    }
    // The redirect with a code is the authorization's success; the record that counts is the code's redemption.
    records.splice(records.indexOf(authorizing), 1);
    const record = await timed(
      'code',
      () =>
        call(o.url, 'POST', '/oauth/token', {
          ...options,
          form: {
            grant_type: 'authorization_code',
            client_id: o.client.id,
            client_secret: o.secret,
            code,
            redirect_uri: o.client.redirectUris[0] as string,
            code_verifier: verifier,
          },
        }),
      (a) => ({ made: { refresh: a.json.refresh_token as string, access: a.json.access_token as string } }),
    );
    record.code = code;
    record.verifier = verifier;
    if (record.status === 200 && record.made?.refresh) pool.push(record.made.refresh);
  }

  async function rotate() {
    const token = pool.shift();
    if (!token) return;
    const record = await timed(
      'refresh',
      () =>
        call(o.url, 'POST', '/oauth/token', {
          ...options,
          form: { grant_type: 'refresh_token', client_id: o.client.id, client_secret: o.secret, refresh_token: token },
        }),
      (a) => ({
        subject: token,
        made: { refresh: a.json.refresh_token as string, access: a.json.access_token as string },
      }),
    );
    // A token whose rotation got no clear answer is not used again by the load: its fate is checked at the end.
    if (record.status === 200 && record.made?.refresh) pool.push(record.made.refresh);
  }

  async function revoke(i: number) {
    // Every third token that comes round is revoked, so rotations keep most families alive.
    if (i % 3 !== 0 || pool.length < 4) return;
    const token = pool.shift() as string;
    await timed(
      'revoke',
      () =>
        call(o.url, 'POST', '/oauth/revoke', {
          ...options,
          form: { client_id: o.client.id, client_secret: o.secret, token },
        }),
      () => ({ subject: token }),
    );
  }

  async function admin(i: number) {
    await timed(
      'admin',
      () =>
        call(o.url, 'POST', '/admin/applications', {
          ...options,
          headers: { cookie: o.adminCookie },
          json: { identifier: `failover-${i}`, name: `Failover ${i}`, environment: 'production' },
        }),
      (a) => ({ subject: a.json.id as string }),
    );
  }

  /**
   * Runs `step` until stopped, or until `cap` of its requests succeeded. After a failure the lane waits longer, as a
   * client honouring Retry-After would (shorter than its 2 s, to see the service come back).
   */
  async function lane(step: (i: number) => Promise<unknown>, cap = Number.POSITIVE_INFINITY) {
    let succeeded = 0;
    for (let i = 0; !stopped && succeeded < cap; i += 1) {
      const before = records.length;
      await step(i);
      const failed = records.slice(before).some((r) => r.status < 200 || r.status >= 300);
      if (!failed && records.length > before) succeeded += 1;
      await new Promise((resolve) => setTimeout(resolve, failed ? FAILURE_PAUSE_MS : PAUSE_MS));
    }
  }

  const lanes = Promise.all([
    lane(signup, o.signupCap),
    lane(signin),
    lane(codeFlow),
    lane(codeFlow),
    lane(rotate),
    lane(rotate),
    lane(revoke),
    lane(admin),
  ]);
  return {
    records,
    async stop() {
      stopped = true;
      await lanes;
    },
  };
}
