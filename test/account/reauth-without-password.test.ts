// People without a password (a passkey, a redirect provider) confirm a sensitive change by signing in again with
// what they have: after the ten-minute window, POST /account/connections/:id/remove and POST /account/email/change
// are refused with reauthentication_required and nothing changes; a fresh sign-in with their passkey or through
// their provider lets both through. GET /account/profile says whether a password exists (password_set).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Sub } from '../../src/identity/ids.ts';
import { attachSignInMethod } from '../../src/identity/sign-in-methods.ts';
import { cookieFrom, JSON_HEADERS } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { roundTrip, startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

const LATER = 601;
const context = { actor: null, clientIp: '192.0.2.1', requestId: 'req-fixture' };

/** A call as the browser makes it: JSON, same origin, the session cookie. */
type Call = (
  method: 'GET' | 'POST',
  path: string,
  body?: object,
) => Promise<{ status: number; json: Record<string, unknown> }>;

const assertReauthRequired = (r: { status: number; json: Record<string, unknown> }) => {
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, {
    error: 'reauthentication_required',
    error_description:
      'Confirm it is you first: sign in again with any of your sign-in methods, or give your current password.',
    request_id: r.json.request_id,
  });
  assert.match(String(r.json.request_id), /\S/);
};

/** A second method to remove, attached directly: the rule under test is removal, not linking. */
const attachWallet = (
  sql: Parameters<typeof attachSignInMethod>[0],
  audit: Parameters<typeof attachSignInMethod>[1],
  identityId: Sub,
) =>
  attachSignInMethod(sql, audit, context, {
    identityId,
    kind: 'web3',
    provider: 'ethereum',
    externalSubject: `0x${identityId.slice(4, 14).padEnd(40, '0')}`,
    label: 'Wallet',
  });

/** After the window: refused, nothing changed; then the fresh sign-in `again` gives lets both changes through. */
async function removeAndChangeEmail(
  call: Call,
  again: () => Promise<Call>,
  methodId: string,
  pendingCount: () => Promise<number>,
) {
  const profile = await call('GET', '/account/profile');
  assert.equal(profile.json.password_set, false);
  assertReauthRequired(await call('POST', `/account/connections/${methodId}/remove`, {}));
  assertReauthRequired(await call('POST', '/account/email/change', { new_email: 'new-address@acme-robotics.dev' }));
  assert.ok(
    ((await call('GET', '/account/connections')).json.connections as { id: string }[]).some((c) => c.id === methodId),
  );
  assert.equal(await pendingCount(), 0, 'no verification was sent');

  const fresh = await again();
  assert.equal((await fresh('POST', `/account/connections/${methodId}/remove`, {})).status, 204);
  assert.ok(
    !((await fresh('GET', '/account/connections')).json.connections as { id: string }[]).some((c) => c.id === methodId),
  );
  const changed = await fresh('POST', '/account/email/change', { new_email: 'new-address@acme-robotics.dev' });
  assert.deepEqual([changed.status, changed.json], [202, { verification_required: true }]);
  assert.equal(await pendingCount(), 1, 'the new address gets its verification');
}

describe('POST /account/connections/:id/remove and /account/email/change without a password', () => {
  test('a passkey-only person signs in again with the passkey, then removes a method and changes the email', async () => {
    const { smtp, config } = await startMailbox();
    after(() => smtp.stop());
    const t = await startTestApp({ config });
    const sub = await makeIdentity(t.sql, { email: 'ada@acme-robotics.dev' });
    const { cookie } = await makeSession(t, sub, { amr: ['hwk', 'user'] });
    const inject: (cookie: string) => Call = (session) => async (method, url, body) => {
      const r = await t.app.inject({
        method,
        url,
        headers: { ...JSON_HEADERS, cookie: session },
        ...(body ? { payload: body } : {}),
      });
      return { status: r.statusCode, json: r.body ? r.json() : {} };
    };
    const authenticator = new SoftAuthenticator({ origin: 'http://localhost:8080' });
    const started = await inject(cookie)('POST', '/account/passkeys/options', {});
    const creation = started.json.options as Parameters<SoftAuthenticator['register']>[0];
    const added = await inject(cookie)('POST', '/account/passkeys', {
      challenge_id: started.json.challenge_id,
      name: 'Laptop',
      credential: authenticator.register(creation),
    });
    assert.equal(added.status, 201, JSON.stringify(added.json));
    const wallet = await attachWallet(t.sql, t.deps.audit, sub);
    t.clock.advance(LATER);

    const passkeySignIn = async () => {
      const options = await t.app.inject({
        method: 'POST',
        url: '/auth/passkey/options',
        headers: JSON_HEADERS,
        payload: {},
      });
      const { challenge_id, options: request } = options.json() as {
        challenge_id: string;
        options: PublicKeyCredentialRequestOptionsJSON;
      };
      const verified = await t.app.inject({
        method: 'POST',
        url: '/auth/passkey/verify',
        headers: { ...JSON_HEADERS, cookie: cookieFrom(options, 'gatehouse_login') },
        payload: { challenge_id, credential: authenticator.assert(request) },
      });
      assert.equal(verified.statusCode, 200, verified.body);
      return inject(cookieFrom(verified, 'gatehouse_session'));
    };
    const pending = async () =>
      Number((await t.sql`select count(*)::int as n from verifications where purpose = 'email_change'`)[0]?.n);
    await removeAndChangeEmail(inject(cookie), passkeySignIn, wallet.id, pending);
  });

  test('a provider-only person signs in again through the provider, then removes a method and changes the email', async () => {
    const upstream = await startUpstream();
    const down = await startDownstream(upstream);
    after(() => Promise.all([down.app.close(), upstream.app.close()]));
    const person = await upstreamPerson(upstream, 'grace@corp.dev');
    const { jar } = await roundTrip(down, person.cookie);
    const [owner] = await down.sql<{ identity_id: Sub }[]>`
      select identity_id from sign_in_methods where kind = 'federated' and external_subject = ${person.sub}`;
    assert.ok(owner);
    const wallet = await attachWallet(down.sql, down.deps.audit, owner.identity_id);
    const call: Call = async (method, path, body) => {
      const r = await jar.fetch(`${down.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', origin: down.url },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await r.text();
      return { status: r.status, json: text ? JSON.parse(text) : {} };
    };
    // Both ends move on together, so the upstream's new ID token is fresh at the downstream.
    down.clock.advance(LATER);
    upstream.clock.advance(LATER);
    const providerSignIn = async () => {
      const again = await roundTrip(down, person.cookie, { jar });
      assert.equal(again.done.status, 303);
      return call;
    };
    const pending = async () =>
      Number((await down.sql`select count(*)::int as n from verifications where purpose = 'email_change'`)[0]?.n);
    await removeAndChangeEmail(call, providerSignIn, wallet.id, pending);
  });
});
