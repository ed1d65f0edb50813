// POST /account/connections/ethereum/start and /complete: a signed-in person links a wallet, then signs in with it
// as themselves; a wallet another identity holds is refused with 409 method_conflict; a wallet that is an
// identity's only method cannot be removed; with sign-up closed an unknown wallet creates nothing.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { cookieFrom, JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';

const ethereum = { enabled: true, chain_ids: [1] };
const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({
  config: { ...config, providers: { ...config.providers, ethereum: { ...config.providers.ethereum, ...ethereum } } },
});

const wallet = () => privateKeyToAccount(generatePrivateKey());

/** Start and complete with the wallet's signature; `base` is /auth/web3/ethereum or /account/connections/ethereum. */
async function signWith(app: typeof t.app, base: string, account: PrivateKeyAccount, session = '') {
  const started = await app.inject({
    method: 'POST',
    url: `${base}/start`,
    headers: { ...JSON_HEADERS, cookie: session },
    payload: { address: account.address, chain_id: 1 },
  });
  if (started.statusCode !== 200) return started;
  const { message } = started.json() as { message: string };
  const login = cookieFrom(started, 'gatehouse_login');
  return app.inject({
    method: 'POST',
    url: `${base}/complete`,
    headers: { ...JSON_HEADERS, cookie: [session, login].filter(Boolean).join('; ') },
    payload: { message, signature: await account.signMessage({ message }) },
  });
}

const envelope = (response: { json(): unknown; headers: Record<string, unknown> }) => response.json();

describe('POST /account/connections/ethereum/complete', () => {
  test('links a wallet to the signed-in person, who then signs in with it as themselves', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, person.sub);
    const account = wallet();
    const linked = await signWith(t.app, '/account/connections/ethereum', account, cookie);
    assert.equal(linked.statusCode, 200, linked.body);
    assert.deepEqual(linked.json(), { linked: `eip155:1:${account.address}` });
    assert.equal(cookieFrom(linked, 'gatehouse_session'), '', 'linking starts no new session');

    const signedIn = await signWith(t.app, '/auth/web3/ethereum', account);
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const [record] = await t.sql<{ subject: string; details: { created: boolean; method: string } }[]>`
      select subject, details from audit_events where event = 'signin.succeeded' order by id desc limit 1`;
    assert.deepEqual([record?.subject, record?.details.method, record?.details.created], [person.sub, 'web3', false]);
  });

  test('refuses a wallet another identity holds with 409 method_conflict, changing nothing', async () => {
    const account = wallet();
    assert.equal((await signWith(t.app, '/auth/web3/ethereum', account)).statusCode, 200);
    const other = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, other.sub);
    const refused = await signWith(t.app, '/account/connections/ethereum', account, cookie);
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(envelope(refused), {
      error: 'method_conflict',
      error_description: 'This sign-in method belongs to another account.',
      request_id: refused.headers['x-request-id'],
    });
    const owners =
      await t.sql`select identity_id from sign_in_methods where external_subject = ${`eip155:1:${account.address}`}`;
    assert.equal(owners.length, 1);
    assert.notEqual(owners[0]?.identity_id, other.sub);
  });

  test('refuses to link without a session with 401 login_required', async () => {
    const refused = await signWith(t.app, '/account/connections/ethereum', wallet());
    assert.equal(refused.statusCode, 401);
    assert.equal((refused.json() as { error: string }).error, 'login_required');
  });

  test("a wallet that is an identity's only sign-in method cannot be removed (409 last_sign_in_method)", async () => {
    const signedIn = await signWith(t.app, '/auth/web3/ethereum', wallet());
    const session = cookieFrom(signedIn, 'gatehouse_session');
    const listed = await t.app.inject({ method: 'GET', url: '/account/connections', headers: { cookie: session } });
    const [only] = (listed.json() as { connections: { id: string; kind: string }[] }).connections;
    assert.equal(only?.kind, 'web3');
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

describe('POST /auth/web3/ethereum/complete without self-service sign-up', () => {
  test('an unknown wallet is refused with 403 federated_signup_closed and creates no identity', async () => {
    const closed = await startTestApp({ config: makeConfig({ providers: { ethereum } }) });
    const account = wallet();
    const refused = await signWith(closed.app, '/auth/web3/ethereum', account);
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(envelope(refused), {
      error: 'federated_signup_closed',
      error_description: 'No account is linked to this provider account, and new accounts cannot be created here.',
      request_id: refused.headers['x-request-id'],
    });
    assert.equal((await closed.sql`select 1 from identities`).length, 0);
  });

  test('with Ethereum not enabled every route answers 404 provider_not_available', async () => {
    const off = await startTestApp({ config: makeConfig() });
    const refused = await signWith(off.app, '/auth/web3/ethereum', wallet());
    assert.equal(refused.statusCode, 404);
    assert.equal((refused.json() as { error: string }).error, 'provider_not_available');
  });
});
