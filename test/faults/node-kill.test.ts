// kill -9 of one of two nodes behind HAProxy while mixed load (sign-ups, sign-ins, token requests) runs: every
// request that got a 2xx has its effect in the database, no identity, grant or outbox row is half-written, the audit
// chains verify, and the surviving node goes on serving (the balancer stops sending to the dead one).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, describe, test } from 'node:test';
import { type Account, makeAccount, totpCode } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startMultiNode } from '../helpers/multi-node.ts';
import { call, setCookie } from '../helpers/node-http.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.ts';

const database = await createTestDatabase();
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
after(() => {
  receiver.closeAllConnections();
  receiver.close();
});
const receiverPort = (receiver.address() as { port: number }).port;

const cluster = await startMultiNode({
  dir: scratchDir(),
  databaseUrl: database.url,
  count: 2,
  extra: [
    '[self_service]',
    'enabled = true',
    '[delivery]',
    'kind = "webhook"',
    'from = "no-reply@acme.test"',
    '[delivery.webhook]',
    `url = "http://localhost:${receiverPort}/hook"`,
  ].join('\n'),
});
after(() => cluster.stop());
const lb = cluster.balancer.url;
const config = makeConfig();
const t = { sql: database.sql, config, clock: new TestClock() };
const { client, secret } = await makeClient(database.sql, cluster.secrets.clientSecret);

/** Rounds of the load; each round runs one sign-up, one sign-in and one code flow side by side. */
const ROUNDS = 12;
const accounts: Account[] = [];
for (let i = 0; i < ROUNDS; i += 1) accounts.push(await makeAccount(database.sql, cluster.secrets, config));
const sessions: string[] = [];
for (let i = 0; i < ROUNDS; i += 1) sessions.push((await makeSession(t, await makeIdentity(database.sql))).cookie);

interface Outcome {
  kind: 'signup' | 'signin' | 'token';
  status: number;
  /** What the 2xx created: an identity id, a session cookie, a refresh token. */
  made?: string;
}

async function signUp(round: number): Promise<Outcome> {
  const answer = await call(lb, 'POST', '/account/signup', {
    json: { email: `load${round}@example.test`, password: 'violet harbor engine 4417 quill', display_name: 'Load' },
  });
  return { kind: 'signup', status: answer.status, made: answer.json.identity_id as string };
}

async function signIn(account: Account): Promise<Outcome> {
  const started = await call(lb, 'POST', '/auth/login', { json: { subject: account.email } });
  if (started.status !== 200) return { kind: 'signin', status: started.status };
  const answer = await call(lb, 'POST', '/auth/mfa/verify', {
    headers: { cookie: setCookie(started, 'gatehouse_login') },
    json: {
      transaction_id: started.json.transaction_id,
      challenge_id: started.json.challenge_id,
      password: account.password,
      totp: totpCode(account.totpSeed as string, new Date()),
    },
  });
  return { kind: 'signin', status: answer.status, made: setCookie(answer, 'gatehouse_session') };
}

async function codeFlow(cookie: string): Promise<Outcome> {
  const { verifier, challenge } = pkcePair();
  const authorized = await call(lb, 'GET', authorizeUrl({ client, challenge }), { headers: { cookie } });
  if (authorized.status !== 302) return { kind: 'token', status: authorized.status };
  const code = new URL(authorized.headers.get('location') as string).searchParams.get('code') as string;
  const answer = await call(lb, 'POST', '/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code,
      redirect_uri: client.redirectUris[0] as string,
      code_verifier: verifier,
    },
  });
  return { kind: 'token', status: answer.status, made: answer.json.refresh_token as string };
}

/** A request whose connection the balancer closed (it was in flight on the killed node) counts as status 0. */
const lost = (kind: Outcome['kind'], request: Promise<Outcome>): Promise<Outcome> =>
  request.catch((error: unknown) => {
    if ((error as Error).message !== 'fetch failed') throw error;
    return { kind, status: 0 };
  });

describe('kill -9 of a node under mixed load', () => {
  test('every 2xx has its effect, nothing is half-written, the audit chains verify, and the other node serves on', async () => {
    const outcomes: Outcome[] = [];
    const [victim] = cluster.nodes;
    let killedAfter = -1;
    for (let round = 0; round < ROUNDS; round += 1) {
      // Kill the node while the fourth round is in flight.
      if (round === 3) {
        setImmediate(() => {
          killedAfter = outcomes.length;
          victim?.child.kill('SIGKILL');
        });
      }
      outcomes.push(
        ...(await Promise.all([
          lost('signup', signUp(round)),
          lost('signin', signIn(accounts[round] as Account)),
          lost('token', codeFlow(sessions[round] as string)),
        ])),
      );
    }
    assert.equal(await victim?.exited, null, 'the node died of SIGKILL');
    assert.ok(killedAfter >= 0);

    // Only requests in flight on the dead node may fail (502 from the balancer, or the connection closed: status 0).
    const failed = outcomes.filter((o) => o.status >= 300 || o.status === 0);
    assert.ok(failed.length <= 3, `failed: ${JSON.stringify(failed)}`);
    for (const o of failed) assert.ok([0, 502].includes(o.status), JSON.stringify(o));
    const lastRounds = outcomes.slice(-9);
    assert.deepEqual(
      lastRounds.map((o) => o.status),
      lastRounds.map((o) => (o.kind === 'signup' ? 201 : 200)),
      'the surviving node answers everything',
    );

    // Every 2xx has its effect, read back through the surviving node or the database.
    for (const o of outcomes.filter((x) => x.status >= 200 && x.status < 300)) {
      if (o.kind === 'signup') {
        const [row] = await database.sql`
          select i.state, (select count(*)::int from emails e where e.identity_id = i.id) as emails,
                 (select count(*)::int from sign_in_methods m where m.identity_id = i.id) as methods
          from identities i where i.id = ${o.made as string}`;
        assert.deepEqual({ ...row }, { state: 'pending_verification', emails: 1, methods: 1 });
      } else if (o.kind === 'signin') {
        const profile = await call(lb, 'GET', '/account/profile', { headers: { cookie: o.made as string } });
        assert.equal(profile.status, 200, profile.text);
      } else {
        const introspected = await call(lb, 'POST', '/oauth/introspect', {
          form: { client_id: client.id, client_secret: secret as string, token: o.made as string },
        });
        assert.equal(introspected.json.active, true);
      }
    }

    // Nothing half-written: each transaction committed whole or not at all.
    const [orphans] = await database.sql`
      select
        (select count(*)::int from identities i where not exists (select 1 from emails e where e.identity_id = i.id))
          as identities_without_email,
        (select count(*)::int from emails e where e.normalized like 'load%'
           and not exists (select 1 from sign_in_methods m where m.identity_id = e.identity_id))
          as signups_without_method,
        (select count(*)::int from emails e where e.normalized like 'load%'
           and not exists (select 1 from outbox_messages o where o.recipient = e.address))
          as signups_without_message,
        (select count(*)::int from oauth_grants g
           where not exists (select 1 from oauth_refresh_tokens r where r.grant_id = g.id))
          as grants_without_token,
        (select count(*)::int from outbox_messages where sealed_body is null and state = 'pending')
          as messages_without_body`;
    assert.deepEqual(
      { ...orphans },
      {
        identities_without_email: 0,
        signups_without_method: 0,
        signups_without_message: 0,
        grants_without_token: 0,
        messages_without_body: 0,
      },
    );

    const verify = await runCli(['audit', 'verify', '--config', cluster.configFiles[1] as string], {
      env: { DATABASE_URL: database.url },
    });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /^OK: \d+ records? in \d+ chains? verified/m);
  });
});
