// Step-up after a single-factor sign-in (docs/identity.md "Second step"), through the real HTTP interface: a second
// Gatehouse is the OpenID Connect upstream, the browser is a cookie jar, passkeys come from the software
// authenticator. Each attack of the review is here: a redirect-provider sign-in alone must not authorize, manage the
// account or enroll a factor once the person has a second factor; the step (TOTP, recovery code or passkey) makes
// the session aal2 and the flow continues to the client, with acr/amr saying what was done.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { decodeJwt } from 'jose';
import type { Sub } from '../../src/identity/ids.ts';
import { confirmTotp, upsertPendingTotp } from '../../src/login/local/credential-store.ts';
import { THROTTLE_RULES } from '../../src/login/local/lockout.ts';
import { newTotpSeed } from '../../src/login/local/totp.ts';
import { enrollTotp, makeAccount, totpCode } from '../helpers/accounts.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { roundTrip, startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';
import { untilBlocked } from '../helpers/lock-waits.ts';
import { makeClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizeUrl, exchangeCodeAt, pkcePair } from '../helpers/oauth-flow.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

const upstream = await startUpstream();

type Downstream = Awaited<ReturnType<typeof startDownstream>>;

/** The browser at the downstream: JSON requests carry its own origin, as the hosted pages' do. */
function browserAt(down: Downstream, jar: CookieJar) {
  const call = async (method: string, path: string, body?: object) => {
    const response = await jar.fetch(`${down.url}${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json', origin: down.url } : {},
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      location: response.headers.get('location'),
      requestId: response.headers.get('x-request-id'),
      json: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null,
    };
  };
  return { get: (path: string) => call('GET', path), post: (path: string, body: object) => call('POST', path, body) };
}

type Answer = Awaited<ReturnType<ReturnType<typeof browserAt>['get']>>;

const assertEnvelope = (answer: Answer, status: number, error: string, description: string) => {
  assert.equal(answer.status, status, JSON.stringify(answer.json));
  assert.deepEqual(answer.json, { error, error_description: description, request_id: answer.requestId });
};

const SECOND_FACTOR_REQUIRED =
  'Finish signing in with your second factor (authentication code, recovery code or passkey) first.';

/** A person known downstream through the upstream account (the first sign-in created the identity). */
async function federatedPerson(down: Downstream, email: string) {
  const person = await upstreamPerson(upstream, email);
  const first = await roundTrip(down, person.cookie);
  assert.equal(first.done.status, 303);
  const [row] = await down.sql<{ identity_id: Sub }[]>`
    select identity_id from sign_in_methods where provider = 'corp' and external_subject = ${person.sub}`;
  assert.ok(row);
  return { upstreamCookie: person.cookie, sub: row.identity_id, firstJar: first.jar };
}

/** An authorization request of a first-party client, and how to redeem the code it yields. */
async function authorization(down: Downstream) {
  const { client, secret } = await makeClient(down.sql, down.secrets.clientSecret);
  const { verifier, challenge } = pkcePair();
  const path = authorizeUrl({ client, challenge });
  const redeem = async (location: string) => {
    const code = new URL(location).searchParams.get('code');
    assert.ok(code, `no code in ${location}`);
    const exchanged = await exchangeCodeAt(down.url, { client, secret, code, verifier });
    assert.equal(exchanged.status, 200);
    return decodeJwt(exchanged.json.id_token as string);
  };
  return { path, redeem, redirectUri: client.redirectUris[0] as string };
}

const liveSessions = (down: Downstream, sub: Sub) =>
  down.sql<{ aal: string; amr: string[]; pending_step: string | null }[]>`
    select aal, amr, pending_step from sessions where identity_id = ${sub} and revoked_at is null order by created_at`;

describe('step-up after a redirect-provider sign-in (identity with TOTP)', async () => {
  const down = await startDownstream(upstream);

  test('the provider alone gives a partial session: /oauth/authorize issues no code and sends the person to the second step', async () => {
    const person = await federatedPerson(down, 'totp-user@corp.dev');
    const { totpSeed } = await enrollTotp(down.sql, down.secrets, person.sub);
    const flow = await authorization(down);
    const { done, jar } = await roundTrip(down, person.upstreamCookie, {
      start: `/auth/federated/start?provider=corp&return_to=${encodeURIComponent(flow.path)}`,
    });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `/second-factor?${new URLSearchParams({ return_to: flow.path })}`);
    const browser = browserAt(down, jar);
    const authorize = await browser.get(flow.path);
    assert.equal(authorize.status, 302);
    assert.equal(authorize.location, `/second-factor?${new URLSearchParams({ return_to: flow.path })}`);
    // prompt=none cannot continue silently either.
    const silent = await browser.get(`${flow.path}&prompt=none`);
    const silentError = new URL(silent.location ?? '');
    assert.equal(`${silentError.origin}${silentError.pathname}`, flow.redirectUri);
    assert.equal(silentError.searchParams.get('error'), 'login_required');
    assert.equal(silentError.searchParams.get('code'), null);
    const pending = await browser.get('/auth/second-factor');
    assert.equal(pending.status, 200);
    assert.deepEqual(pending.json, { pending: 'second_factor', methods: ['totp', 'recovery_code'] });

    // A wrong code changes nothing: still partial, still no code.
    const wrong = await browser.post('/auth/second-factor', { totp: '000000' });
    assertEnvelope(wrong, 400, 'invalid_totp_code', 'The code is not correct; check the authenticator app and retry.');
    assert.equal((await browser.get(flow.path)).location?.startsWith('/second-factor?'), true);

    const stepped = await browser.post('/auth/second-factor', { totp: totpCode(totpSeed, down.clock.now()) });
    assert.equal(stepped.status, 200, JSON.stringify(stepped.json));
    assert.deepEqual(stepped.json, {
      aal: 'aal2',
      amr: ['fed', 'otp'],
      enrollment_required: false,
      second_factor_required: false,
    });
    const issued = await browser.get(flow.path);
    assert.equal(issued.status, 302);
    assert.ok(issued.location?.startsWith(flow.redirectUri));
    const idToken = await flow.redeem(issued.location as string);
    assert.equal(idToken.acr, 'aal2');
    assert.deepEqual(idToken.amr, ['fed', 'otp']);
    // The partial session was replaced, not upgraded in place: only the aal2 one is live in this browser.
    assert.deepEqual((await liveSessions(down, person.sub)).map((s) => ({ ...s })).at(-1), {
      aal: 'aal2',
      amr: ['fed', 'otp'],
      pending_step: null,
    });
  });

  test('a partial session cannot manage the account, enroll a factor, link a method or reach the console', async () => {
    const person = await federatedPerson(down, 'no-manage@corp.dev');
    await enrollTotp(down.sql, down.secrets, person.sub);
    const { jar } = await roundTrip(down, person.upstreamCookie);
    const browser = browserAt(down, jar);
    assertEnvelope(await browser.get('/account/profile'), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
    assertEnvelope(
      await browser.post('/account/totp/start', {}),
      403,
      'second_factor_required',
      SECOND_FACTOR_REQUIRED,
    );
    assertEnvelope(
      await browser.post('/account/passkeys/options', {}),
      403,
      'second_factor_required',
      SECOND_FACTOR_REQUIRED,
    );
    assertEnvelope(await browser.get('/admin/applications'), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
    const link = await browser.get('/account/connections/start?provider=corp');
    assert.equal(link.status, 302);
    assert.ok(link.location?.startsWith('/signin?'));
    assert.equal((await down.sql`select count(*)::int as n from passkey_credentials`)[0]?.n, 0);
    // Sign-out works from a partial session.
    const out = await jar.fetch(`${down.url}/auth/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: down.url },
      body: '{}',
    });
    assert.equal(out.status, 204);
  });

  test('a recovery code is a second step too, once', async () => {
    const person = await federatedPerson(down, 'recovery@corp.dev');
    const { recoveryCodes } = await enrollTotp(down.sql, down.secrets, person.sub);
    const first = browserAt(down, (await roundTrip(down, person.upstreamCookie)).jar);
    const code = recoveryCodes[0] as string;
    const stepped = await first.post('/auth/second-factor', { recovery_code: code });
    assert.equal(stepped.status, 200, JSON.stringify(stepped.json));
    assert.deepEqual(stepped.json?.amr, ['fed', 'otp']);
    const second = browserAt(down, (await roundTrip(down, person.upstreamCookie)).jar);
    assertEnvelope(
      await second.post('/auth/second-factor', { recovery_code: code }),
      400,
      'invalid_totp_code',
      'The recovery code is not correct or was already used.',
    );
    assertEnvelope(await second.get('/account/profile'), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
  });

  test('bad input to the second step is a 4xx envelope and changes nothing', async () => {
    const person = await federatedPerson(down, 'bad-input@corp.dev');
    const { totpSeed } = await enrollTotp(down.sql, down.secrets, person.sub);
    const browser = browserAt(down, (await roundTrip(down, person.upstreamCookie)).jar);
    const code = totpCode(totpSeed, down.clock.now());
    assertEnvelope(
      await browser.post('/auth/second-factor', {}),
      400,
      'invalid_request',
      'Send totp or recovery_code, exactly one',
    );
    assertEnvelope(
      await browser.post('/auth/second-factor', { totp: code, recovery_code: 'abc' }),
      400,
      'invalid_request',
      'Send totp or recovery_code, exactly one',
    );
    const unknownField = await browser.post('/auth/second-factor', { totp: code, extra: 1 });
    assert.equal(unknownField.status, 400);
    assert.equal(unknownField.json?.error, 'invalid_request');
    // Signed out: login_required. Complete session: nothing is pending.
    const anonymous = browserAt(down, new CookieJar());
    assertEnvelope(
      await anonymous.post('/auth/second-factor', { totp: code }),
      401,
      'login_required',
      'Sign in first.',
    );
    assertEnvelope(await anonymous.get('/auth/second-factor'), 401, 'login_required', 'Sign in first.');
    const stepped = await browser.post('/auth/second-factor', { totp: code });
    assert.equal(stepped.status, 200);
    assertEnvelope(
      await browser.post('/auth/second-factor', { totp: code }),
      409,
      'second_factor_not_pending',
      'This session does not wait for a second factor.',
    );
  });

  test('guessing codes is throttled like sign-in: past the account threshold even the right code gets 429', async () => {
    const person = await federatedPerson(down, 'guesser@corp.dev');
    const { totpSeed } = await enrollTotp(down.sql, down.secrets, person.sub);
    const browser = browserAt(down, (await roundTrip(down, person.upstreamCookie)).jar);
    const right = totpCode(totpSeed, down.clock.now());
    const wrong = right === '000000' ? '000001' : '000000';
    for (let attempt = 0; attempt < THROTTLE_RULES.account.threshold; attempt += 1)
      assert.equal((await browser.post('/auth/second-factor', { totp: wrong })).status, 400);
    const locked = await browser.post('/auth/second-factor', { totp: right });
    assertEnvelope(locked, 429, 'rate_limited', 'Too many attempts; retry later.');
    assertEnvelope(await browser.get('/account/profile'), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
  });

  test("a stranger guessing codes locks out only unknown browsers: the owner's browser that finished the step before still gets in", async () => {
    const owner = await federatedPerson(down, 'known-browser@corp.dev');
    const { totpSeed } = await enrollTotp(down.sql, down.secrets, owner.sub);
    const ownersJar = new CookieJar();
    await roundTrip(down, owner.upstreamCookie, { jar: ownersJar });
    const first = await browserAt(down, ownersJar).post('/auth/second-factor', {
      totp: totpCode(totpSeed, down.clock.now()),
    });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.match(ownersJar.header, /gatehouse_device=/);
    down.clock.advance(30);

    // The stranger holds the owner's upstream account, and a device cookie of their own account's second step,
    // which vouches for nobody else.
    const own = await federatedPerson(down, 'stranger-own@corp.dev');
    const { totpSeed: ownSeed } = await enrollTotp(down.sql, down.secrets, own.sub);
    const strangersJar = new CookieJar();
    await roundTrip(down, own.upstreamCookie, { jar: strangersJar });
    const ownStep = await browserAt(down, strangersJar).post('/auth/second-factor', {
      totp: totpCode(ownSeed, down.clock.now()),
    });
    assert.equal(ownStep.status, 200, JSON.stringify(ownStep.json));
    await roundTrip(down, owner.upstreamCookie, { jar: strangersJar });
    const stranger = browserAt(down, strangersJar);
    const right = () => totpCode(totpSeed, down.clock.now());
    const wrong = () => (right() === '000000' ? '000001' : '000000');
    for (let attempt = 0; attempt < THROTTLE_RULES.account.threshold; attempt += 1)
      assert.equal((await stranger.post('/auth/second-factor', { totp: wrong() })).status, 400);
    assertEnvelope(
      await stranger.post('/auth/second-factor', { totp: right() }),
      429,
      'rate_limited',
      'Too many attempts; retry later.',
    );
    // Any other browser that never finished the owner's step is an unknown client too.
    const fresh = browserAt(down, (await roundTrip(down, owner.upstreamCookie)).jar);
    assertEnvelope(
      await fresh.post('/auth/second-factor', { totp: right() }),
      429,
      'rate_limited',
      'Too many attempts; retry later.',
    );

    // The owner signs in again in their own browser while the lock holds: its own budget, the step succeeds.
    await roundTrip(down, owner.upstreamCookie, { jar: ownersJar });
    const again = await browserAt(down, ownersJar).post('/auth/second-factor', { totp: right() });
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.deepEqual(again.json?.amr, ['fed', 'otp']);
    const budgets = await down.sql<{ budget: string }[]>`
      select details->>'budget' as budget from audit_events
      where event = 'signin.succeeded' and subject = ${owner.sub} and details->>'method' = 'second_factor'
      order by id`;
    assert.deepEqual(
      budgets.map((b) => b.budget),
      ['unknown_clients', 'known_device'],
    );
  });

  test('a provider trusted for upstream MFA that reports it needs no second step', async () => {
    const trusted = await startDownstream(upstream, () => ({ trustUpstreamMfa: true }));
    const person = await federatedPerson(trusted, 'trusted-mfa@corp.dev');
    await enrollTotp(trusted.sql, trusted.secrets, person.sub);
    const upstreamSub = (
      await trusted.sql<{ external_subject: string }[]>`
      select external_subject from sign_in_methods where identity_id = ${person.sub}`
    )[0]?.external_subject as Sub;
    const withMfa = await makeSession(upstream, upstreamSub, { amr: ['pwd', 'otp', 'mfa'] });
    const { done } = await roundTrip(trusted, withMfa.cookie);
    assert.equal(done.headers.get('location'), '/settings');
    assert.deepEqual((await liveSessions(trusted, person.sub)).map((s) => ({ ...s })).at(-1), {
      aal: 'aal2',
      amr: ['fed', 'mfa'],
      pending_step: null,
    });
    // Without "mfa" in the upstream's amr the same provider is one factor: the second step again.
    const { done: plain } = await roundTrip(trusted, person.upstreamCookie);
    assert.ok(plain.headers.get('location')?.startsWith('/second-factor?'));
  });
});

describe('step-up with a passkey (identity whose second factor is a passkey)', async () => {
  const down = await startDownstream(upstream, () => ({}), 'localhost');
  const authenticator = new SoftAuthenticator({ origin: down.url });

  /** A federated person who registered a passkey from their (complete, aal1) session. */
  async function personWithPasskey(email: string) {
    const person = await federatedPerson(down, email);
    const browser = browserAt(down, person.firstJar);
    const options = await browser.post('/account/passkeys/options', {});
    assert.equal(options.status, 200, JSON.stringify(options.json));
    const added = await browser.post('/account/passkeys', {
      challenge_id: options.json.challenge_id,
      credential: authenticator.register(options.json.options),
    });
    assert.equal(added.status, 201, JSON.stringify(added.json));
    return person;
  }

  const assertWith = async (
    browser: ReturnType<typeof browserAt>,
    device: SoftAuthenticator,
  ): Promise<{ answer: Answer; options: PublicKeyCredentialRequestOptionsJSON }> => {
    const started = await browser.post('/auth/passkey/options', {});
    assert.equal(started.status, 200);
    const options = started.json.options as PublicKeyCredentialRequestOptionsJSON;
    const answer = await browser.post('/auth/passkey/verify', {
      challenge_id: started.json.challenge_id,
      // The newest credential: the person's own (each test registers one).
      credential: device.assert(options, { credential: device.credentials.at(-1) }),
    });
    return { answer, options };
  };

  test('the provider alone waits for the passkey; a user-verified assertion finishes it with amr fed+hwk+user', async () => {
    const person = await personWithPasskey('passkey-user@corp.dev');
    const { done, jar } = await roundTrip(down, person.upstreamCookie);
    assert.ok(done.headers.get('location')?.startsWith('/second-factor?'));
    const browser = browserAt(down, jar);
    assert.deepEqual((await browser.get('/auth/second-factor')).json, {
      pending: 'second_factor',
      methods: ['passkey'],
    });
    // A TOTP code cannot finish it: the account has none.
    assertEnvelope(
      await browser.post('/auth/second-factor', { totp: '123456' }),
      400,
      'invalid_totp_code',
      'The code is not correct; check the authenticator app and retry.',
    );
    const { answer, options } = await assertWith(browser, authenticator);
    // The options named this identity's own passkey, not any passkey of the site.
    assert.deepEqual(
      options.allowCredentials?.map((c) => c.id),
      [authenticator.credentials.at(-1)?.id.toString('base64url')],
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.deepEqual(answer.json, {
      aal: 'aal2',
      amr: ['fed', 'hwk', 'user'],
      enrollment_required: false,
      second_factor_required: false,
    });
    assert.equal((await browser.get('/account/profile')).status, 200);
  });

  test('a passkey without user verification is refused and leaves the session partial', async () => {
    const person = await personWithPasskey('no-pin@corp.dev');
    const browser = browserAt(down, (await roundTrip(down, person.upstreamCookie)).jar);
    // The same key, used without its PIN.
    const withoutPin = new SoftAuthenticator({ origin: down.url, userVerified: false });
    withoutPin.credentials.push(...authenticator.credentials);
    const { answer } = await assertWith(browser, withoutPin);
    assertEnvelope(
      answer,
      401,
      'user_verification_required',
      'The passkey did not verify you with a PIN or biometric; this sign-in requires it.',
    );
    assertEnvelope(await browser.get('/account/profile'), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
  });

  test('a password of an account whose second factor is a passkey waits for it, and cannot enroll TOTP instead', async () => {
    const account = await makeAccount(down.sql, down.secrets, down.config, { totp: false });
    const passwordSignIn = async (browser: ReturnType<typeof browserAt>) => {
      const started = await browser.post('/auth/login', { subject: account.email });
      return browser.post('/auth/mfa/verify', {
        transaction_id: started.json.transaction_id,
        challenge_id: started.json.challenge_id,
        password: account.password,
      });
    };
    // First sign-in: no second factor yet, so enrollment; a passkey is enrolled and used.
    const first = browserAt(down, new CookieJar());
    assert.equal((await passwordSignIn(first)).json.enrollment_required, true);
    const options = await first.post('/account/passkeys/options', {});
    const device = new SoftAuthenticator({ origin: down.url });
    const added = await first.post('/account/passkeys', {
      challenge_id: options.json.challenge_id,
      credential: device.register(options.json.options),
    });
    assert.equal(added.status, 201, JSON.stringify(added.json));

    const browser = browserAt(down, new CookieJar());
    const partial = await passwordSignIn(browser);
    assert.deepEqual(partial.json, {
      aal: 'aal1',
      amr: ['pwd'],
      enrollment_required: false,
      second_factor_required: true,
    });
    assertEnvelope(
      await browser.post('/account/totp/start', {}),
      403,
      'second_factor_required',
      SECOND_FACTOR_REQUIRED,
    );
    const { answer } = await assertWith(browser, device);
    assert.deepEqual(answer.json?.amr, ['pwd', 'hwk', 'user']);

    // Turning TOTP on and off again leaves the passkey: the session then waits for it, not for enrollment.
    const totp = await browser.post('/account/totp/start', {});
    const enrolled = await browser.post('/account/totp/complete', {
      code: totpCode(totp.json.secret, down.clock.now()),
    });
    assert.equal(enrolled.status, 200, JSON.stringify(enrolled.json));
    down.clock.advance(30);
    const disabled = await browser.post('/account/totp/disable', {
      password: account.password,
      code: totpCode(totp.json.secret, down.clock.now()),
    });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.json));
    assert.deepEqual(disabled.json, { enrollment_required: false });
    assertEnvelope(await browser.get('/account/profile'), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
  });
});

describe('login.require_second_factor: everyone enrolls one at first sign-in', async () => {
  const down = await startDownstream(upstream, () => ({ login: { require_second_factor: true } }));

  test('a person without a second factor gets an enrollment-only session, enrolls TOTP and continues to the client', async () => {
    const person = await upstreamPerson(upstream, 'must-enroll@corp.dev');
    const flow = await authorization(down);
    const { done, jar } = await roundTrip(down, person.cookie, {
      start: `/auth/federated/start?provider=corp&return_to=${encodeURIComponent(flow.path)}`,
    });
    assert.equal(done.headers.get('location'), `/enroll?${new URLSearchParams({ return_to: flow.path })}`);
    const browser = browserAt(down, jar);
    assert.equal((await browser.get(flow.path)).location?.startsWith('/enroll?'), true);
    assertEnvelope(
      await browser.get('/account/profile'),
      403,
      'enrollment_required',
      'Finish enrolling a second factor first.',
    );
    // Nothing to step up to yet: the second step itself says enrollment comes first.
    assertEnvelope(
      await browser.post('/auth/second-factor', { totp: '123456' }),
      403,
      'enrollment_required',
      'Finish enrolling a second factor first.',
    );
    const started = await browser.post('/account/totp/start', {});
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const completed = await browser.post('/account/totp/complete', {
      code: totpCode(started.json.secret, down.clock.now()),
    });
    assert.equal(completed.status, 200, JSON.stringify(completed.json));
    assert.equal(completed.json.aal, 'aal2');
    assert.deepEqual(completed.json.amr, ['fed', 'otp']);
    const issued = await browser.get(flow.path);
    assert.ok(issued.location?.startsWith(flow.redirectUri));
    const idToken = await flow.redeem(issued.location as string);
    assert.equal(idToken.acr, 'aal2');
    assert.deepEqual(idToken.amr, ['fed', 'otp']);
  });
});

describe('login.require_second_factor: enrollment with a passkey', async () => {
  const down = await startDownstream(upstream, () => ({ login: { require_second_factor: true } }), 'localhost');

  test('an enrollment-only session adds a passkey, and a user-verified sign-in with it completes the session', async () => {
    const person = await upstreamPerson(upstream, 'passkey-enroll@corp.dev');
    const { done, jar } = await roundTrip(down, person.cookie);
    assert.ok(done.headers.get('location')?.startsWith('/enroll?'));
    const browser = browserAt(down, jar);
    const device = new SoftAuthenticator({ origin: down.url });
    const options = await browser.post('/account/passkeys/options', {});
    assert.equal(options.status, 200, JSON.stringify(options.json));
    const added = await browser.post('/account/passkeys', {
      challenge_id: options.json.challenge_id,
      credential: device.register(options.json.options),
    });
    assert.equal(added.status, 201, JSON.stringify(added.json));
    // Registering is not yet the second step: the session still waits, now for the passkey it has.
    assertEnvelope(
      await browser.get('/account/profile'),
      403,
      'enrollment_required',
      'Finish enrolling a second factor first.',
    );
    const started = await browser.post('/auth/passkey/options', {});
    const signedIn = await browser.post('/auth/passkey/verify', {
      challenge_id: started.json.challenge_id,
      credential: device.assert(started.json.options),
    });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.json));
    assert.deepEqual(signedIn.json, {
      aal: 'aal2',
      amr: ['fed', 'hwk', 'user'],
      enrollment_required: false,
      second_factor_required: false,
    });
    assert.equal((await browser.get('/account/profile')).status, 200);
    // From now on the provider alone waits for the passkey.
    const { done: later } = await roundTrip(down, person.cookie);
    assert.ok(later.headers.get('location')?.startsWith('/second-factor?'));
  });
});

describe("a second factor added in one session makes the identity's other single-factor sessions wait for it", async () => {
  const down = await startDownstream(upstream, () => ({}), 'localhost');
  type Browser = ReturnType<typeof browserAt>;

  /** Enrolls TOTP over HTTP in `browser`'s session; answers the TOTP secret. */
  const enrollTotpIn = async (browser: Browser) => {
    const started = await browser.post('/account/totp/start', {});
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const done = await browser.post('/account/totp/complete', {
      code: totpCode(started.json.secret, down.clock.now()),
    });
    assert.equal(done.status, 200, JSON.stringify(done.json));
    // The enrollment spent this time step: a later code is needed.
    down.clock.advance(30);
    return started.json.secret as string;
  };
  const registerPasskeyIn = async (browser: Browser, device: SoftAuthenticator) => {
    const options = await browser.post('/account/passkeys/options', {});
    assert.equal(options.status, 200, JSON.stringify(options.json));
    return browser.post('/account/passkeys', {
      challenge_id: options.json.challenge_id,
      credential: device.register(options.json.options),
    });
  };
  /** A password account without a second factor: each sign-in is an enrollment-only session. */
  const passwordAccount = async () => {
    const account = await makeAccount(down.sql, down.secrets, down.config, { totp: false });
    const signIn = async () => {
      const browser = browserAt(down, new CookieJar());
      const started = await browser.post('/auth/login', { subject: account.email });
      const verified = await browser.post('/auth/mfa/verify', {
        transaction_id: started.json.transaction_id,
        challenge_id: started.json.challenge_id,
        password: account.password,
      });
      assert.equal(verified.json?.enrollment_required, true, JSON.stringify(verified.json));
      return browser;
    };
    return { sub: account.sub as Sub, signIn };
  };

  test('a redirect-provider session opened before TOTP was enrolled elsewhere gets no more codes without the second step', async () => {
    const person = await federatedPerson(down, 'open-before-totp@corp.dev');
    const flow = await authorization(down);
    const other = browserAt(down, (await roundTrip(down, person.upstreamCookie)).jar);
    // Complete at aal1 while the person has no second factor: a code is issued.
    assert.ok((await other.get(flow.path)).location?.startsWith(flow.redirectUri));

    const secret = await enrollTotpIn(browserAt(down, person.firstJar));
    const authorize = await other.get(flow.path);
    assert.equal(authorize.status, 302);
    assert.equal(authorize.location, `/second-factor?${new URLSearchParams({ return_to: flow.path })}`);
    assert.deepEqual((await other.get('/auth/second-factor')).json, {
      pending: 'second_factor',
      methods: ['totp', 'recovery_code'],
    });
    assertEnvelope(await other.get('/account/profile'), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);

    const stepped = await other.post('/auth/second-factor', { totp: totpCode(secret, down.clock.now()) });
    assert.equal(stepped.status, 200, JSON.stringify(stepped.json));
    const issued = await other.get(flow.path);
    const idToken = await flow.redeem(issued.location as string);
    assert.equal(idToken.acr, 'aal2');
    assert.deepEqual(idToken.amr, ['fed', 'otp']);
  });

  test('a redirect-provider session opened before a passkey was registered elsewhere waits for the passkey', async () => {
    const person = await federatedPerson(down, 'open-before-passkey@corp.dev');
    const flow = await authorization(down);
    const other = browserAt(down, (await roundTrip(down, person.upstreamCookie)).jar);
    const device = new SoftAuthenticator({ origin: down.url });
    const added = await registerPasskeyIn(browserAt(down, person.firstJar), device);
    assert.equal(added.status, 201, JSON.stringify(added.json));

    assert.equal(
      (await other.get(flow.path)).location,
      `/second-factor?${new URLSearchParams({ return_to: flow.path })}`,
    );
    assert.deepEqual((await other.get('/auth/second-factor')).json, { pending: 'second_factor', methods: ['passkey'] });
    // Nor may it add a passkey of its own now.
    assertEnvelope(
      await other.post('/account/passkeys/options', {}),
      403,
      'second_factor_required',
      SECOND_FACTOR_REQUIRED,
    );
    const [audited] = await down.sql<{ details: { sessions_awaiting_step: number } }[]>`
      select details from audit_events
      where event = 'method.attached' and subject = ${person.sub} and details->>'kind' = 'passkey'`;
    assert.equal(audited?.details.sessions_awaiting_step, 1);
  });

  test('a session waiting for enrollment cannot enroll once the owner enrolled a factor in another session', async () => {
    const account = await passwordAccount();
    const waiting = await account.signIn();
    const owner = await account.signIn();
    const secret = await enrollTotpIn(owner);

    assert.deepEqual((await waiting.get('/auth/second-factor')).json, {
      pending: 'second_factor',
      methods: ['totp', 'recovery_code'],
    });
    for (const path of ['/account/passkeys/options', '/account/totp/start'])
      assertEnvelope(await waiting.post(path, {}), 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
    assert.equal((await down.sql`select 1 from passkey_credentials where identity_id = ${account.sub}`).length, 0);
    // The way on is the factor the owner enrolled.
    const stepped = await waiting.post('/auth/second-factor', { totp: totpCode(secret, down.clock.now()) });
    assert.equal(stepped.status, 200, JSON.stringify(stepped.json));
    assert.deepEqual(stepped.json?.amr, ['pwd', 'otp']);
  });

  test('two enrollment-only sessions finishing a factor at once: exactly one succeeds, the other must use it', async () => {
    const account = await passwordAccount();
    const withPasskey = await account.signIn();
    const withTotp = await account.signIn();
    const device = new SoftAuthenticator({ origin: down.url });
    const options = await withPasskey.post('/account/passkeys/options', {});
    assert.equal(options.status, 200, JSON.stringify(options.json));
    const totp = await withTotp.post('/account/totp/start', {});
    assert.equal(totp.status, 200);

    // Both were allowed when they started; the identity's row is held while both finish, so both wait on it.
    let finished: Promise<[Answer, Answer]> | undefined;
    await down.sql.begin(async (tx) => {
      await tx`select 1 from identities where id = ${account.sub} for update`;
      finished = Promise.all([
        withPasskey.post('/account/passkeys', {
          challenge_id: options.json.challenge_id,
          credential: device.register(options.json.options),
        }),
        withTotp.post('/account/totp/complete', { code: totpCode(totp.json.secret, down.clock.now()) }),
      ]);
      await untilBlocked(down.sql, finished, 2);
    });
    const answers = await (finished as Promise<[Answer, Answer]>);
    const succeeded = answers.filter((a) => a.status === 200 || a.status === 201);
    assert.equal(succeeded.length, 1, JSON.stringify(answers.map((a) => [a.status, a.json])));
    const refused = answers.find((a) => !succeeded.includes(a)) as Answer;
    assertEnvelope(refused, 403, 'second_factor_required', SECOND_FACTOR_REQUIRED);
    const [factors] = await down.sql<{ passkeys: number; totp: number }[]>`
      select (select count(*)::int from passkey_credentials where identity_id = ${account.sub}) as passkeys,
             (select count(*)::int from totp_credentials where identity_id = ${account.sub} and confirmed_at is not null) as totp`;
    assert.equal((factors?.passkeys ?? 0) + (factors?.totp ?? 0), 1);
  });

  test('a sign-in settled while a factor is being added waits for it, and then waits for the second step', async () => {
    const person = await federatedPerson(down, 'settled-meanwhile@corp.dev');
    let signedIn: ReturnType<typeof roundTrip> | undefined;
    // What a TOTP enrollment's transaction writes (new-second-factor.ts), held open while the sign-in is settled.
    await down.sql.begin(async (tx) => {
      await tx`select 1 from identities where id = ${person.sub} for update`;
      const seed = newTotpSeed(down.secrets.totp, person.sub);
      await upsertPendingTotp(tx, person.sub, seed.sealed);
      await confirmTotp(tx, person.sub, seed.sealed, 0, down.clock.now());
      signedIn = roundTrip(down, person.upstreamCookie);
      await untilBlocked(down.sql, signedIn);
    });
    const { done } = await (signedIn as ReturnType<typeof roundTrip>);
    assert.ok(done.headers.get('location')?.startsWith('/second-factor?'), String(done.headers.get('location')));
    assert.equal((await liveSessions(down, person.sub)).at(-1)?.pending_step, 'second_factor');
  });
});
