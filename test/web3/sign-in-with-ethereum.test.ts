// POST /auth/web3/ethereum/start and /complete: a wallet (a viem local account, an externally owned account) signs
// the EIP-4361 message the server issued and gets an aal1 session; any change to that message, an expired one, a
// spent or foreign nonce, another wallet's or a malformed signature is refused with the envelope and creates nothing.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Sub } from '../../src/identity/ids.ts';
import { cookieFrom, enrollTotp, JSON_HEADERS, totpCode } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { startMailbox } from '../helpers/mailbox.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({
  config: {
    ...config,
    providers: { ...config.providers, ethereum: { ...config.providers.ethereum, enabled: true, chain_ids: [1, 10] } },
  },
});

const wallet = () => privateKeyToAccount(generatePrivateKey());

async function start(address: string, chainId = 1) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/auth/web3/ethereum/start',
    headers: JSON_HEADERS,
    payload: { address, chain_id: chainId },
  });
  assert.equal(response.statusCode, 200, response.body);
  const { message } = response.json() as { message: string };
  return { message, cookie: cookieFrom(response, 'gatehouse_login') };
}

const complete = (cookie: string, message: string, signature: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/web3/ethereum/complete',
    headers: { ...JSON_HEADERS, cookie },
    payload: { message, signature },
  });

function assertRefused(response: LightMyRequestResponse, status: number, error: string, description: string) {
  assert.equal(response.statusCode, status, response.body);
  assert.deepEqual(response.json(), {
    error,
    error_description: description,
    request_id: response.headers['x-request-id'],
  });
  assert.equal(cookieFrom(response, 'gatehouse_session'), '');
}

const MESSAGE_INVALID =
  'This sign-in message is unknown, expired, changed, already used or belongs to another browser; start again.';
// This app has no JSON-RPC URL, so the refusal also says a contract wallet could not have been checked.
const SIGNATURE_INVALID =
  "The signature does not prove that this wallet signed the message. A smart-contract wallet's signature cannot be checked here: there is no JSON-RPC node for chain 1.";

const methodsOf = async (subject: string) =>
  t.sql<{ identity_id: string }[]>`select identity_id from sign_in_methods where external_subject = ${subject}`;

describe('POST /auth/web3/ethereum/complete', () => {
  test('a wallet of a person with TOTP gives a session that waits for it: second_factor_required, nothing else works', async () => {
    const account = wallet();
    const first = await start(account.address);
    const signedUp = await complete(first.cookie, first.message, await account.signMessage({ message: first.message }));
    assert.equal(signedUp.statusCode, 200, signedUp.body);
    const [method] = await methodsOf(`eip155:1:${account.address}`);
    const { totpSeed } = await enrollTotp(t.sql, t.secrets, method?.identity_id as Sub);
    const again = await start(account.address);
    const response = await complete(again.cookie, again.message, await account.signMessage({ message: again.message }));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      aal: 'aal1',
      amr: ['pop'],
      enrollment_required: false,
      second_factor_required: true,
    });
    const session = cookieFrom(response, 'gatehouse_session');
    const profile = await t.app.inject({ method: 'GET', url: '/account/profile', headers: { cookie: session } });
    assert.equal(profile.statusCode, 403);
    assert.equal((profile.json() as { error: string }).error, 'second_factor_required');
    const stepped = await t.app.inject({
      method: 'POST',
      url: '/auth/second-factor',
      headers: { ...JSON_HEADERS, cookie: session },
      payload: { totp: totpCode(totpSeed, t.clock.now()) },
    });
    assert.equal(stepped.statusCode, 200, stepped.body);
    assert.deepEqual((stepped.json() as { amr: string[] }).amr, ['pop', 'otp']);
  });

  test('a wallet that signs the served message gets an aal1 session keyed by eip155:<chain>:<address>', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address.toLowerCase(), 10);
    const host = new URL(t.config.server.issuer).host;
    assert.match(
      message,
      new RegExp(`^${host} wants you to sign in with your Ethereum account:\\n${account.address}\\n`),
    );
    assert.match(message, new RegExp(`\\nURI: ${t.config.server.issuer.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n`));
    assert.match(message, /\nVersion: 1\nChain ID: 10\nNonce: [0-9a-f]{32}\nIssued At: /);
    assert.match(message, /\nExpiration Time: .+\nRequest ID: .+$/);
    assert.match(message, /\n\nSign in with your Ethereum wallet\. /);

    const response = await complete(cookie, message, await account.signMessage({ message }));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      aal: 'aal1',
      amr: ['pop'],
      enrollment_required: false,
      second_factor_required: false,
    });
    const session = cookieFrom(response, 'gatehouse_session');
    assert.notEqual(session, '');
    const [method] = await methodsOf(`eip155:10:${account.address}`);
    assert.ok(method, 'the wallet is a sign-in method of a new identity');

    const connections = await t.app.inject({
      method: 'GET',
      url: '/account/connections',
      headers: { cookie: session },
    });
    assert.deepEqual(
      (connections.json() as { connections: { kind: string; provider: string; label: string }[] }).connections.map(
        (c) => [c.kind, c.provider, c.label],
      ),
      [['web3', 'ethereum', `${account.address.slice(0, 6)}…${account.address.slice(-4)}`]],
    );

    // The same wallet on the same chain signs in again as the same identity, created nothing new.
    const again = await start(account.address, 10);
    const second = await complete(again.cookie, again.message, await account.signMessage({ message: again.message }));
    assert.equal(second.statusCode, 200, second.body);
    const [record] = await t.sql<{ subject: string; details: { created: boolean } }[]>`
      select subject, details from audit_events where event = 'signin.succeeded' order by id desc limit 1`;
    assert.deepEqual([record?.subject, record?.details.created], [method.identity_id, false]);
  });

  const alterations: [string, (m: string) => string][] = [
    ['domain', (m) => m.replace(/^[^ ]+ wants/, 'evil.example wants')],
    ['uri', (m) => m.replace(/\nURI: [^\n]+/, '\nURI: https://evil.example')],
    ['chain', (m) => m.replace('Chain ID: 1', 'Chain ID: 10')],
    ['nonce', (m) => m.replace(/Nonce: [0-9a-f]+/, 'Nonce: 0123456789abcdef0123456789abcdef')],
    ['expiry', (m) => m.replace(/Expiration Time: [^\n]+/, 'Expiration Time: 2999-01-01T00:00:00.000Z')],
    ['statement', (m) => m.replace('Sign in with your Ethereum wallet.', 'Approve everything.')],
  ];
  for (const [field, alter] of alterations)
    test(`refuses a message whose ${field} was changed with wallet_message_invalid, creating nothing`, async () => {
      const account = wallet();
      const { message, cookie } = await start(account.address);
      const altered = alter(message);
      assert.notEqual(altered, message);
      const response = await complete(cookie, altered, await account.signMessage({ message: altered }));
      assertRefused(response, 400, 'wallet_message_invalid', MESSAGE_INVALID);
      assert.equal((await methodsOf(`eip155:1:${account.address}`)).length, 0);
    });

  test('refuses an expired message with wallet_message_invalid', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address);
    t.clock.advance(301);
    assertRefused(
      await complete(cookie, message, await account.signMessage({ message })),
      400,
      'wallet_message_invalid',
      MESSAGE_INVALID,
    );
    assert.equal((await methodsOf(`eip155:1:${account.address}`)).length, 0);
  });

  test('a nonce is spent once: a replay is refused with wallet_message_invalid', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address);
    const signature = await account.signMessage({ message });
    assert.equal((await complete(cookie, message, signature)).statusCode, 200);
    assertRefused(await complete(cookie, message, signature), 400, 'wallet_message_invalid', MESSAGE_INVALID);
  });

  test('of five parallel completions of one message exactly one succeeds', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address);
    const signature = await account.signMessage({ message });
    const responses = await Promise.all(Array.from({ length: 5 }, () => complete(cookie, message, signature)));
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 400, 400, 400, 400]);
    for (const refused of responses.filter((r) => r.statusCode === 400))
      assertRefused(refused, 400, 'wallet_message_invalid', MESSAGE_INVALID);
    assert.equal((await methodsOf(`eip155:1:${account.address}`)).length, 1);
  });

  test("a message completed from another browser (another login cookie) is refused and stays the owner's", async () => {
    const account = wallet();
    const owner = await start(account.address);
    const stranger = await start(wallet().address);
    const signature = await account.signMessage({ message: owner.message });
    assertRefused(
      await complete(stranger.cookie, owner.message, signature),
      400,
      'wallet_message_invalid',
      MESSAGE_INVALID,
    );
    assertRefused(await complete('', owner.message, signature), 400, 'wallet_message_invalid', MESSAGE_INVALID);
    assert.equal((await complete(owner.cookie, owner.message, signature)).statusCode, 200);
  });

  test('a signature by another wallet is refused with wallet_signature_invalid', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address);
    const response = await complete(cookie, message, await wallet().signMessage({ message }));
    assertRefused(response, 400, 'wallet_signature_invalid', SIGNATURE_INVALID);
    assert.equal((await methodsOf(`eip155:1:${account.address}`)).length, 0);
  });

  test('a malformed 65-byte signature (r = s = 0) is refused with wallet_signature_invalid', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address);
    assertRefused(
      await complete(cookie, message, `0x${'00'.repeat(64)}1b`),
      400,
      'wallet_signature_invalid',
      SIGNATURE_INVALID,
    );
  });

  test('a truncated signature is refused with wallet_contract_unverifiable (no JSON-RPC URL here)', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address);
    const good = await account.signMessage({ message });
    assertRefused(
      await complete(cookie, message, `${good.slice(0, 60)}ff`),
      400,
      'wallet_contract_unverifiable',
      "This looks like a smart-contract wallet's signature; checking it needs a JSON-RPC node for chain 1, which this service does not have. Use a plain account, or ask the administrator to configure one.",
    );
  });

  test('a signature that is not hex is refused with invalid_request before anything is spent', async () => {
    const account = wallet();
    const { message, cookie } = await start(account.address);
    const response = await complete(cookie, message, 'not a signature');
    assert.equal(response.statusCode, 400);
    assert.equal((response.json() as { error: string }).error, 'invalid_request');
    assert.equal((await complete(cookie, message, await account.signMessage({ message }))).statusCode, 200);
  });
});

describe('POST /auth/web3/ethereum/start', () => {
  test('refuses a chain outside the allow-list with invalid_request', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/web3/ethereum/start',
      headers: JSON_HEADERS,
      payload: { address: wallet().address, chain_id: 5 },
    });
    assertRefused(response, 400, 'invalid_request', 'chain_id must be one of the accepted chains: 1, 10');
    assert.equal(cookieFrom(response, 'gatehouse_login'), '');
  });

  test('refuses an address that is not one with invalid_request', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/web3/ethereum/start',
      headers: JSON_HEADERS,
      payload: { address: '0x1234', chain_id: 1 },
    });
    assertRefused(response, 400, 'invalid_request', 'address is not an Ethereum address');
  });

  test('refuses a cross-origin request with csrf_rejected', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/web3/ethereum/start',
      headers: { ...JSON_HEADERS, origin: 'https://evil.example' },
      payload: { address: wallet().address, chain_id: 1 },
    });
    assertRefused(response, 403, 'csrf_rejected', 'The request came from another origin');
  });
});

describe('POST /auth/web3/ethereum/start beside a password sign-in', () => {
  test("reuses the browser's login cookie, so a password sign-in under way keeps its cookie", async () => {
    const cookie = `gatehouse_login=${'a'.repeat(43)}`;
    const account = wallet();
    const started = await t.app.inject({
      method: 'POST',
      url: '/auth/web3/ethereum/start',
      headers: { ...JSON_HEADERS, cookie },
      payload: { address: account.address, chain_id: 1 },
    });
    assert.equal(cookieFrom(started, 'gatehouse_login'), cookie);
    const { message } = started.json() as { message: string };
    assert.equal((await complete(cookie, message, await account.signMessage({ message }))).statusCode, 200);
  });
});
