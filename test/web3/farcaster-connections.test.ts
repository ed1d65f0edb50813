// POST /account/connections/farcaster/start and /complete: a signed-in person links a Farcaster account (by fid) and
// then signs in with it as themselves; an fid another identity holds is refused with 409 method_conflict; a sign-in
// channel cannot complete a link; a Farcaster account that is an identity's only method cannot be removed; with
// sign-up closed an unknown fid creates nothing. Offline: relay stand-in, ID registry stand-in on ganache.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { cookieFrom, JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { startFarcasterChain } from '../helpers/farcaster-chain.ts';
import { appSignsIn, startRelayStandIn } from '../helpers/farcaster-relay.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';

const chain = await startFarcasterChain();
const relay = await startRelayStandIn();
const farcaster = { enabled: true, relay_url: relay.url, rpc_url: chain.url };
const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({
  config: { ...config, providers: { ...config.providers, farcaster: { ...config.providers.farcaster, ...farcaster } } },
});

let nextFid = 2000;
async function farcasterAccount() {
  const fid = nextFid++;
  const custody = privateKeyToAccount(generatePrivateKey());
  await chain.register(fid, custody.address);
  return { fid, custody };
}

/** Start at `base`, the app signs on the relay, one poll at `pollBase` (default `base`): the poll's answer. */
async function signWith(
  app: TestApp,
  base: string,
  who: { fid: number; custody: PrivateKeyAccount; username?: string },
  session = '',
  pollBase = base,
) {
  const started = await app.app.inject({
    method: 'POST',
    url: `${base}/start`,
    headers: { ...JSON_HEADERS, cookie: session },
    payload: {},
  });
  if (started.statusCode !== 200) return started;
  const { channel, url } = started.json() as { channel: string; url: string };
  await appSignsIn(relay.url, url, who);
  return app.app.inject({
    method: 'POST',
    url: `${pollBase}/complete`,
    headers: { ...JSON_HEADERS, cookie: [session, cookieFrom(started, 'gatehouse_login')].filter(Boolean).join('; ') },
    payload: { channel },
  });
}

const envelope = (response: { json(): unknown }) => response.json();

describe('POST /account/connections/farcaster/complete', () => {
  test('links a Farcaster account to the signed-in person, who then signs in with it as themselves', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, person.sub);
    const who = { ...(await farcasterAccount()), username: 'bob' };
    const linked = await signWith(t, '/account/connections/farcaster', who, cookie);
    assert.equal(linked.statusCode, 200, linked.body);
    assert.deepEqual(linked.json(), { linked: `farcaster:${who.fid}` });
    assert.equal(cookieFrom(linked, 'gatehouse_session'), '', 'linking starts no new session');

    const listed = await t.app.inject({ method: 'GET', url: '/account/connections', headers: { cookie } });
    const connections = (listed.json() as { connections: { kind: string; provider: string; label: string }[] })
      .connections;
    assert.deepEqual(
      connections.filter((c) => c.provider === 'farcaster').map((c) => [c.kind, c.label]),
      [['web3', `@bob, fid ${who.fid}`]],
    );

    const signedIn = await signWith(t, '/auth/web3/farcaster', who);
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const [record] = await t.sql<{ subject: string; details: { created: boolean; provider: string } }[]>`
      select subject, details from audit_events where event = 'signin.succeeded' order by id desc limit 1`;
    assert.deepEqual(
      [record?.subject, record?.details.provider, record?.details.created],
      [person.sub, 'farcaster', false],
    );
  });

  test('refuses an fid another identity holds with 409 method_conflict, changing nothing', async () => {
    const who = await farcasterAccount();
    assert.equal((await signWith(t, '/auth/web3/farcaster', who)).statusCode, 200);
    const other = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, other.sub);
    const refused = await signWith(t, '/account/connections/farcaster', who, cookie);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.deepEqual(envelope(refused), {
      error: 'method_conflict',
      error_description: 'This sign-in method belongs to another account.',
      request_id: refused.headers['x-request-id'],
    });
    const owners =
      await t.sql`select identity_id from sign_in_methods where external_subject = ${`farcaster:${who.fid}`}`;
    assert.equal(owners.length, 1);
    assert.notEqual(owners[0]?.identity_id, other.sub);
  });

  test('a sign-in channel cannot complete a link', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, person.sub);
    const refused = await signWith(
      t,
      '/auth/web3/farcaster',
      await farcasterAccount(),
      cookie,
      '/account/connections/farcaster',
    );
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal((refused.json() as { error: string }).error, 'wallet_message_invalid');
  });

  test('refuses to link without a session with 401 login_required', async () => {
    const refused = await signWith(t, '/account/connections/farcaster', await farcasterAccount());
    assert.equal(refused.statusCode, 401);
    assert.equal((refused.json() as { error: string }).error, 'login_required');
  });

  test("a Farcaster account that is an identity's only sign-in method cannot be removed", async () => {
    const signedIn = await signWith(t, '/auth/web3/farcaster', await farcasterAccount());
    const session = cookieFrom(signedIn, 'gatehouse_session');
    const listed = await t.app.inject({ method: 'GET', url: '/account/connections', headers: { cookie: session } });
    const [only] = (listed.json() as { connections: { id: string; provider: string }[] }).connections;
    assert.equal(only?.provider, 'farcaster');
    const refused = await t.app.inject({
      method: 'POST',
      url: `/account/connections/${only?.id}/remove`,
      headers: { ...JSON_HEADERS, cookie: session },
      payload: {},
    });
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(envelope(refused), {
      error: 'last_sign_in_method',
      error_description: 'The last sign-in method of an account cannot be removed.',
      request_id: refused.headers['x-request-id'],
    });
  });
});

describe('POST /auth/web3/farcaster/complete without self-service sign-up', () => {
  test('an unknown fid is refused with 403 federated_signup_closed and creates no identity', async () => {
    const closed = await startTestApp({ config: makeConfig({ providers: { farcaster } }) });
    const refused = await signWith(closed, '/auth/web3/farcaster', await farcasterAccount());
    assert.equal(refused.statusCode, 403, refused.body);
    assert.deepEqual(envelope(refused), {
      error: 'federated_signup_closed',
      error_description: 'No account is linked to this provider account, and new accounts cannot be created here.',
      request_id: refused.headers['x-request-id'],
    });
    assert.equal((await closed.sql`select 1 from identities`).length, 0);
  });
});
