// Sign In With Farcaster end to end, offline: a local relay stand-in carries the channel, the Farcaster app's side
// (test/helpers/farcaster-relay.ts) signs with a viem custody key, and the service checks the fid's custody address
// against an ID registry stand-in on a local OP-Mainnet-style ganache chain (providers.farcaster.rpc_url). Every
// refusal answers the error envelope: an expired channel, a foreign domain, a reused or foreign nonce, another
// browser, a key that is not the fid's custody address, an unknown fid, an unreachable chain or relay.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Config } from '../../src/config/schema.ts';
import type { Sub } from '../../src/identity/ids.ts';
import { cookieFrom, enrollTotp, JSON_HEADERS } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/browser-app.ts';
import { startFarcasterChain } from '../helpers/farcaster-chain.ts';
import { type AppSignIn, appSignsIn, startRelayStandIn } from '../helpers/farcaster-relay.ts';
import { startMailbox } from '../helpers/mailbox.ts';

const chain = await startFarcasterChain();
const relay = await startRelayStandIn();
const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const withFarcaster = (farcaster: Partial<Config['providers']['farcaster']>): Config => ({
  ...config,
  providers: {
    ...config.providers,
    farcaster: { ...config.providers.farcaster, enabled: true, relay_url: relay.url, rpc_url: chain.url, ...farcaster },
  },
});
const t = await startTestApp({ config: withFarcaster({}) });

const key = () => privateKeyToAccount(generatePrivateKey());
let nextFid = 1000;
/** A Farcaster account: a fresh fid whose custody address the registry holds. */
async function farcasterAccount() {
  const fid = nextFid++;
  const custody = key();
  await chain.register(fid, custody.address);
  return { fid, custody };
}

interface Started {
  channel: string;
  url: string;
  qr_svg: string;
  expires_in: number;
  cookie: string;
}

async function start(app: TestApp, base = '/auth/web3/farcaster', session = ''): Promise<Started> {
  const response = await app.app.inject({
    method: 'POST',
    url: `${base}/start`,
    headers: { ...JSON_HEADERS, cookie: session },
    payload: {},
  });
  assert.equal(response.statusCode, 200, response.body);
  return { ...(response.json() as Omit<Started, 'cookie'>), cookie: cookieFrom(response, 'gatehouse_login') };
}

const poll = (
  app: TestApp,
  started: Pick<Started, 'channel' | 'cookie'>,
  base = '/auth/web3/farcaster',
  session = '',
) =>
  app.app.inject({
    method: 'POST',
    url: `${base}/complete`,
    headers: { ...JSON_HEADERS, cookie: [session, started.cookie].filter(Boolean).join('; ') },
    payload: { channel: started.channel },
  });

/** Start, let the app sign in on the relay, poll once: the poll's answer. */
async function signIn(app: TestApp, who: AppSignIn) {
  const started = await start(app);
  await appSignsIn(relay.url, started.url, who);
  return { started, response: await poll(app, started) };
}

function assertEnvelope(response: LightMyRequestResponse, status: number, error: string, description: string) {
  assert.equal(response.statusCode, status, response.body);
  assert.deepEqual(response.json(), {
    error,
    error_description: description,
    request_id: response.headers['x-request-id'],
  });
}
const MESSAGE_INVALID =
  'This sign-in message is unknown, expired, changed, already used or belongs to another browser; start again.';
const NOT_CUSTODY =
  'The message was not signed by the custody address that the Farcaster ID registry holds for this Farcaster account.';

const methodsOf = async (fid: number) =>
  t.sql<{ identity_id: string; label: string }[]>`
    select identity_id, label from sign_in_methods where provider = 'farcaster' and external_subject = ${`farcaster:${fid}`}`;

describe('Sign In With Farcaster: the relay flow', () => {
  test('GET /auth/providers offers Farcaster with its start route', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/providers' });
    const providers = (response.json() as { providers: { id: string; start_url: string | null }[] }).providers;
    assert.deepEqual(
      providers.find((p) => p.id === 'farcaster'),
      { id: 'farcaster', name: 'Farcaster', kind: 'web3', start_url: '/auth/web3/farcaster/start' },
    );
  });

  test('start opens a relay channel for our domain, issuer and nonce and answers its deep link as a QR code', async () => {
    const started = await start(t);
    assert.match(started.channel, /^[0-9a-f]{32}$/);
    assert.equal(started.expires_in, 300);
    assert.match(started.qr_svg, /^<svg[^>]*>/);
    const channel = [...relay.channels.values()].find((c) => c.params.nonce === started.channel);
    assert.ok(channel, 'the relay has a channel for our nonce');
    assert.equal(channel.url, started.url);
    assert.deepEqual(
      [channel.params.domain, channel.params.siweUri, channel.params.acceptAuthAddress],
      ['localhost:8080', 'http://localhost:8080', undefined],
    );
    assert.ok(started.cookie, 'the channel is bound to a login cookie');
  });

  test('the poll answers 202 until the app signs, then a session for farcaster:<fid> named from the profile', async () => {
    const { fid, custody } = await farcasterAccount();
    const started = await start(t);
    const waiting = await poll(t, started);
    assert.equal(waiting.statusCode, 202, waiting.body);
    assert.deepEqual(waiting.json(), { state: 'pending' });

    await appSignsIn(relay.url, started.url, { fid, custody, username: 'alice', displayName: 'Alice A.' });
    const done = await poll(t, started);
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), {
      aal: 'aal1',
      amr: ['pop'],
      enrollment_required: false,
      second_factor_required: false,
    });
    assert.ok(cookieFrom(done, 'gatehouse_session'), 'a session cookie is set');
    const [method] = await methodsOf(fid);
    assert.equal(method?.label, `@alice, fid ${fid}`);
    const [identity] = await t.sql<{ display_name: string }[]>`
      select display_name from identities where id = ${method?.identity_id ?? ''}`;
    assert.equal(identity?.display_name, 'Alice A.');
    const emails = await t.sql`select 1 from emails where identity_id = ${method?.identity_id ?? ''}`;
    assert.equal(emails.length, 0, 'no email is taken from Farcaster');

    // Signing in again with the same fid is the same identity, even after the custody key moved to a new address.
    const moved = key();
    await chain.register(fid, moved.address);
    const again = await signIn(t, { fid, custody: moved });
    assert.equal(again.response.statusCode, 200, again.response.body);
    assert.equal((await methodsOf(fid)).length, 1);
    const [record] = await t.sql<{ subject: string; details: { created: boolean; provider: string } }[]>`
      select subject, details from audit_events where event = 'signin.succeeded' order by id desc limit 1`;
    assert.deepEqual(
      [record?.subject, record?.details.provider, record?.details.created],
      [method?.identity_id, 'farcaster', false],
    );
  });

  test('a Farcaster account of a person with TOTP gives a session that waits for it (second_factor_required)', async () => {
    const who = await farcasterAccount();
    assert.equal((await signIn(t, who)).response.statusCode, 200);
    const [method] = await methodsOf(who.fid);
    await enrollTotp(t.sql, t.secrets, method?.identity_id as Sub);
    const { response } = await signIn(t, who);
    assert.deepEqual(response.json(), {
      aal: 'aal1',
      amr: ['pop'],
      enrollment_required: false,
      second_factor_required: true,
    });
    const profile = await t.app.inject({
      method: 'GET',
      url: '/account/profile',
      headers: { cookie: cookieFrom(response, 'gatehouse_session') },
    });
    assertEnvelope(
      profile,
      403,
      'second_factor_required',
      'Finish signing in with your second factor (authentication code, recovery code or passkey) first.',
    );
  });

  test('a channel is spent once: polling it again after the sign-in is refused', async () => {
    const who = await farcasterAccount();
    const { started, response } = await signIn(t, who);
    assert.equal(response.statusCode, 200, response.body);
    assertEnvelope(await poll(t, started), 400, 'wallet_message_invalid', MESSAGE_INVALID);
  });

  test('two polls of one completed channel in parallel: exactly one session', async () => {
    const who = await farcasterAccount();
    const started = await start(t);
    await appSignsIn(relay.url, started.url, who);
    const answers = await Promise.all([poll(t, started), poll(t, started), poll(t, started)]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 400, 400]);
  });
});

describe('Sign In With Farcaster: refusals', () => {
  test('a message signed for another channel’s nonce (a replayed message) is refused', async () => {
    const who = await farcasterAccount();
    const first = await start(t);
    const second = await start(t);
    await appSignsIn(relay.url, second.url, { ...who, alter: { nonce: first.channel } });
    assertEnvelope(await poll(t, second), 400, 'wallet_message_invalid', MESSAGE_INVALID);
    assert.equal((await methodsOf(who.fid)).length, 0);
  });

  test('a message for a foreign domain is refused', async () => {
    const who = await farcasterAccount();
    const { response } = await signIn(t, { ...who, alter: { domain: 'evil.example' } });
    assertEnvelope(response, 400, 'wallet_message_invalid', MESSAGE_INVALID);
  });

  test('a message naming another site as its uri is refused', async () => {
    const who = await farcasterAccount();
    const { response } = await signIn(t, { ...who, alter: { uri: 'https://evil.example' } });
    assertEnvelope(response, 400, 'wallet_message_invalid', MESSAGE_INVALID);
  });

  test('an expired channel is refused, even when the app completed it', async () => {
    const who = await farcasterAccount();
    const clock = t.clock;
    const started = await start(t);
    await appSignsIn(relay.url, started.url, who);
    clock.advance(301);
    assertEnvelope(await poll(t, started), 400, 'wallet_message_invalid', MESSAGE_INVALID);
  });

  test('a message with an expiry beyond the channel’s is refused', async () => {
    const who = await farcasterAccount();
    const later = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    const { response } = await signIn(t, { ...who, alter: { expirationTime: later } });
    assertEnvelope(response, 400, 'wallet_message_invalid', MESSAGE_INVALID);
  });

  test('another browser (another login cookie) cannot complete the channel, and the owner still can', async () => {
    const who = await farcasterAccount();
    const started = await start(t);
    await appSignsIn(relay.url, started.url, who);
    const other = await start(t);
    assertEnvelope(
      await poll(t, { channel: started.channel, cookie: other.cookie }),
      400,
      'wallet_message_invalid',
      MESSAGE_INVALID,
    );
    assert.equal((await poll(t, started)).statusCode, 200);
  });

  test('a key that is not the fid’s custody address is refused', async () => {
    const { fid } = await farcasterAccount();
    const { response } = await signIn(t, { fid, custody: key() });
    assertEnvelope(response, 400, 'farcaster_signature_invalid', NOT_CUSTODY);
    assert.equal((await methodsOf(fid)).length, 0);
  });

  test('the custody key of one fid cannot sign in as another fid', async () => {
    const mine = await farcasterAccount();
    const theirs = await farcasterAccount();
    const { response } = await signIn(t, { fid: theirs.fid, custody: mine.custody });
    assertEnvelope(response, 400, 'farcaster_signature_invalid', NOT_CUSTODY);
  });

  test('a signature by another key over a message naming the custody address is refused', async () => {
    const who = await farcasterAccount();
    const { response } = await signIn(t, { ...who, signer: key() });
    assertEnvelope(response, 400, 'farcaster_signature_invalid', NOT_CUSTODY);
  });

  test('an fid the registry does not know is refused', async () => {
    const { response } = await signIn(t, { fid: 987_654, custody: key() });
    assertEnvelope(response, 400, 'farcaster_signature_invalid', NOT_CUSTODY);
    assert.equal((await methodsOf(987_654)).length, 0);
  });

  test('an unknown channel is refused', async () => {
    const started = await start(t);
    assertEnvelope(
      await poll(t, { ...started, channel: 'ab'.repeat(16) }),
      400,
      'wallet_message_invalid',
      MESSAGE_INVALID,
    );
  });
});

describe('Sign In With Farcaster: unreachable parts', () => {
  test('an OP Mainnet node that cannot be reached answers 503 chain_unavailable, not a signature error', async () => {
    const down = await startTestApp({ config: withFarcaster({ rpc_url: `http://127.0.0.1:${await freePort()}` }) });
    const who = await farcasterAccount();
    const started = await start(down);
    await appSignsIn(relay.url, started.url, who);
    assertEnvelope(
      await poll(down, started),
      503,
      'chain_unavailable',
      'The blockchain node that checks this sign-in cannot be reached; retry later.',
    );
  });

  test('a forged signature while the node cannot be reached also answers 503, not a signature error', async () => {
    const down = await startTestApp({ config: withFarcaster({ rpc_url: `http://127.0.0.1:${await freePort()}` }) });
    const who = await farcasterAccount();
    const started = await start(down);
    await appSignsIn(relay.url, started.url, { ...who, signer: key() });
    assertEnvelope(
      await poll(down, started),
      503,
      'chain_unavailable',
      'The blockchain node that checks this sign-in cannot be reached; retry later.',
    );
  });

  test('a relay that cannot be reached answers 503 farcaster_relay_unavailable at start', async () => {
    const down = await startTestApp({ config: withFarcaster({ relay_url: `http://127.0.0.1:${await freePort()}` }) });
    const response = await down.app.inject({
      method: 'POST',
      url: '/auth/web3/farcaster/start',
      headers: JSON_HEADERS,
      payload: {},
    });
    assertEnvelope(
      response,
      503,
      'farcaster_relay_unavailable',
      'The Farcaster relay that carries this sign-in cannot be reached; retry later.',
    );
  });

  test('a cross-site start or poll is refused with 403 csrf_rejected', async () => {
    const foreign = { 'content-type': 'application/json', origin: 'https://evil.example' };
    for (const url of ['/auth/web3/farcaster/start', '/auth/web3/farcaster/complete']) {
      const response = await t.app.inject({ method: 'POST', url, headers: foreign, payload: { channel: 'ab' } });
      assertEnvelope(response, 403, 'csrf_rejected', 'The request came from another origin');
    }
  });

  test('not enabled: start answers 404 provider_not_available', async () => {
    const off = await startTestApp({ config: withFarcaster({ enabled: false }) });
    const response = await off.app.inject({
      method: 'POST',
      url: '/auth/web3/farcaster/start',
      headers: JSON_HEADERS,
      payload: {},
    });
    assertEnvelope(response, 404, 'provider_not_available', 'This sign-in provider is not offered here.');
  });
});
