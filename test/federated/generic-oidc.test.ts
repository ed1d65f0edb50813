// Sign-in, sign-up, linking and unlinking through a generic OpenID Connect provider, with a second Gatehouse as the
// upstream (real discovery, real tokens), and the refusals the identity rules and the protocol checks demand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { roundTrip, startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';
import { makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

describe('generic OpenID Connect provider (a second Gatehouse upstream)', async () => {
  const upstream = await startUpstream();
  const down = await startDownstream(upstream);

  const methodsOf = (sub: string) =>
    down.sql<{ kind: string; provider: string; external_subject: string }[]>`
      select kind, provider, external_subject from sign_in_methods where identity_id = ${sub} order by id`;
  const ownerOf = async (externalSubject: string) =>
    (
      await down.sql<{ identity_id: string }[]>`
        select identity_id from sign_in_methods where kind = 'federated' and provider = 'corp'
          and external_subject = ${externalSubject}`
    )[0]?.identity_id ?? null;
  const identityCount = async () => Number((await down.sql`select count(*)::int as n from identities`)[0]?.n);
  const events = (event: string) =>
    down.sql<{ actor: string | null; subject: string | null; details: Record<string, unknown> }[]>`
      select actor, subject, details from audit_events where event = ${event} order by id`;
  const sessionOf = async (jar: CookieJar) => {
    const response = await jar.fetch(`${down.url}/account/connections`);
    return {
      status: response.status,
      body: (await response.json()) as {
        connections?: { id: string; kind: string; provider: string; label: string }[];
      },
    };
  };

  test('an unknown upstream account signs up: a new identity with its verified email, an aal1 "fed" session, and back to return_to', async () => {
    const person = await upstreamPerson(upstream, 'grace@corp.dev');
    const before = await identityCount();
    const { done, jar } = await roundTrip(down, person.cookie);
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/settings');
    assert.equal(await identityCount(), before + 1);
    const sub = await ownerOf(person.sub);
    assert.ok(sub);
    const [email] =
      await down.sql`select address, verified_at is not null as verified from emails where identity_id = ${sub}`;
    assert.deepEqual({ ...email }, { address: 'grace@corp.dev', verified: true });
    const [session] = await down.sql`select aal, amr from sessions where identity_id = ${sub}`;
    assert.deepEqual({ ...session }, { aal: 'aal1', amr: ['fed'] });
    const listed = await sessionOf(jar);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.connections?.map((c) => [c.kind, c.provider, c.label]),
      [['federated', 'corp', 'grace@corp.dev']],
    );
    assert.equal((await events('signup.created')).at(-1)?.subject, sub);
    assert.deepEqual((await events('method.attached')).at(-1)?.details.provider, 'corp');
  });

  test('a known upstream account signs in to the same identity, without creating another', async () => {
    const person = await upstreamPerson(upstream, 'ada@corp.dev');
    await roundTrip(down, person.cookie);
    const sub = await ownerOf(person.sub);
    const before = await identityCount();
    const { done, jar } = await roundTrip(down, person.cookie, {
      start: '/auth/federated/start?provider=corp&return_to=%2Foauth%2Fauthorize%3Fclient_id%3Dx',
    });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/oauth/authorize?client_id=x');
    assert.equal(await identityCount(), before);
    assert.equal((await sessionOf(jar)).status, 200);
    const listed = await sessionOf(jar);
    assert.deepEqual(
      listed.body.connections?.map((c) => c.label),
      ['ada@corp.dev'],
    );
    const [sessions] = await down.sql`select count(*)::int as n from sessions where identity_id = ${sub}`;
    assert.equal(sessions?.n, 2);
  });

  test('an ial2 owner signing in through the provider gets aal1 and is refused admin access (admin_required)', async () => {
    const owner = await makeIdentity(down.sql, { assurance: 'ial2', email: 'owner@acme.dev' });
    await down.sql`insert into organizations (id, name) values (${down.config.organization.id}, 'Acme') on conflict do nothing`;
    await down.sql`insert into memberships (organization_id, identity_id, roles)
                   values (${down.config.organization.id}, ${owner}, ${['owner']})`;
    const person = await upstreamPerson(upstream, 'owner@corp.dev');
    await down.sql`insert into sign_in_methods (identity_id, kind, provider, external_subject)
                   values (${owner}, 'federated', 'corp', ${person.sub})`;
    const { done, jar } = await roundTrip(down, person.cookie);
    assert.equal(done.status, 303);
    const admin = await jar.fetch(`${down.url}/admin/status`);
    assert.equal(admin.status, 403);
    assert.equal(((await admin.json()) as { error: string }).error, 'admin_required');
  });

  test('an email verified at an existing identity is never linked: a 409 page offers "sign in to your existing account to link it"', async () => {
    const existing = await makeIdentity(down.sql, { email: 'linus@corp.dev' });
    const person = await upstreamPerson(upstream, 'Linus@corp.dev');
    const before = await identityCount();
    const { done, body, jar } = await roundTrip(down, person.cookie);
    assert.equal(done.status, 409);
    assert.match(done.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(body, /This email address belongs to an existing account/);
    assert.match(body, /Sign in to your existing account to link it/);
    assert.match(
      body,
      /href="\/signin\?return_to=%2Faccount%2Fconnections%2Fstart%3Fprovider%3Dcorp%26return_to%3D%252Fsettings"/,
    );
    assert.equal(await identityCount(), before);
    assert.equal(await ownerOf(person.sub), null);
    assert.deepEqual([...(await methodsOf(existing))], []);
    assert.equal((await sessionOf(jar)).status, 401);
  });

  test("two upstream accounts with one email stay two: the second is not signed in to the first one's identity", async () => {
    const first = await upstreamPerson(upstream, 'twin@corp.dev');
    const second = await upstreamPerson(upstream, 'twin@corp.dev');
    await roundTrip(down, first.cookie);
    const firstSub = await ownerOf(first.sub);
    const { done, jar } = await roundTrip(down, second.cookie);
    assert.equal(done.status, 409);
    assert.equal(await ownerOf(second.sub), null);
    assert.deepEqual(
      (await methodsOf(firstSub as string)).map((m) => m.external_subject),
      [first.sub],
    );
    assert.equal((await sessionOf(jar)).status, 401);
  });

  test('a signed-in identity links the upstream account, lists it, and unlinks it under the last-method rule; each step audited', async () => {
    const sub = await makeIdentity(down.sql, { email: 'mary@acme.dev' });
    await down.sql`insert into sign_in_methods (identity_id, kind, provider, external_subject)
                   values (${sub}, 'password', 'local', 'mary@acme.dev')`;
    const { cookie } = await makeSession(down, sub);
    const jar = new CookieJar();
    jar.take(new Response(null, { headers: { 'set-cookie': `${cookie}; Path=/` } }));
    const person = await upstreamPerson(upstream, 'mary@corp.dev');
    const { done } = await roundTrip(down, person.cookie, {
      jar,
      start: '/account/connections/start?provider=corp&return_to=%2Fsettings%3Flinked%3Dcorp',
    });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/settings?linked=corp');
    assert.equal(await ownerOf(person.sub), sub);
    const attached = (await events('method.attached')).at(-1);
    assert.equal(attached?.subject, sub);
    assert.equal(attached?.actor, sub);
    const listed = await sessionOf(jar);
    const linked = listed.body.connections?.find((c) => c.kind === 'federated');
    assert.ok(linked);
    const remove = (id: string) =>
      jar.fetch(`${down.url}/account/connections/${id}/remove`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: down.url },
        body: '{}',
      });
    assert.equal((await remove(linked.id)).status, 204);
    assert.equal(await ownerOf(person.sub), null);
    assert.equal((await events('method.removed')).at(-1)?.details.method_id, linked.id);
    const password = (await sessionOf(jar)).body.connections?.[0];
    const last = await remove(password?.id as string);
    assert.equal(last.status, 409);
    assert.equal(((await last.json()) as { error: string }).error, 'last_sign_in_method');
  });

  test('linking an upstream account that belongs to another identity is refused with a 409 page and audited', async () => {
    const person = await upstreamPerson(upstream, 'owned@corp.dev');
    await roundTrip(down, person.cookie);
    const holder = await ownerOf(person.sub);
    const other = await makeIdentity(down.sql, { email: 'other@acme.dev' });
    const jar = new CookieJar();
    jar.take(new Response(null, { headers: { 'set-cookie': `${(await makeSession(down, other)).cookie}; Path=/` } }));
    const { done, body } = await roundTrip(down, person.cookie, {
      jar,
      start: '/account/connections/start?provider=corp',
    });
    assert.equal(done.status, 409);
    assert.match(body, /This sign-in method belongs to another account\./);
    assert.match(body, /<code>method_conflict<\/code>/);
    assert.equal(await ownerOf(person.sub), holder);
    assert.deepEqual([...(await methodsOf(other))], []);
    assert.equal((await events('method.attach_refused')).at(-1)?.subject, other);
  });

  test('linking while signed out sends the browser to sign in first, then back to the link start', async () => {
    const response = await fetch(`${down.url}/account/connections/start?provider=corp&return_to=%2Fsettings`, {
      redirect: 'manual',
    });
    assert.equal(response.status, 302);
    assert.equal(
      response.headers.get('location'),
      `/signin?return_to=${encodeURIComponent('/account/connections/start?provider=corp&return_to=%2Fsettings')}`,
    );
  });

  test('a callback followed in another browser is refused (invalid_federated_transaction), and the right browser can still finish', async () => {
    const person = await upstreamPerson(upstream, 'eve-target@corp.dev');
    const other = new CookieJar();
    const { done, body, jar, callback } = await roundTrip(down, person.cookie, { callbackJar: other });
    assert.equal(done.status, 400);
    assert.match(body, /<code>invalid_federated_transaction<\/code>/);
    assert.equal(await ownerOf(person.sub), null);
    const finished = await jar.fetch(callback);
    assert.equal(finished.status, 303);
    assert.ok(await ownerOf(person.sub));
  });

  test('a replayed callback is refused: the transaction is used once', async () => {
    const person = await upstreamPerson(upstream, 'replay@corp.dev');
    const { done, jar, callback } = await roundTrip(down, person.cookie);
    assert.equal(done.status, 303);
    const again = await jar.fetch(callback);
    assert.equal(again.status, 400);
    assert.match(await again.text(), /<code>invalid_federated_transaction<\/code>/);
  });

  test('an `iss` naming another provider is refused (RFC 9207), and nothing is signed in', async () => {
    const person = await upstreamPerson(upstream, 'mixup@corp.dev');
    const { done, body, jar } = await roundTrip(down, person.cookie, {
      tamperCallback: (url) => url.searchParams.set('iss', 'https://accounts.google.com'),
    });
    assert.equal(done.status, 400);
    assert.match(body, /<code>federated_response_invalid<\/code>/);
    assert.equal(await ownerOf(person.sub), null);
    assert.equal((await sessionOf(jar)).status, 401);
    assert.match(down.logs.text, /federated sign-in refused/);
  });

  test('an ID token with another nonce is refused', async () => {
    const person = await upstreamPerson(upstream, 'nonce@corp.dev');
    const { done, body } = await roundTrip(down, person.cookie, {
      tamperRequest: (url) => url.searchParams.set('nonce', 'a-nonce-the-transaction-never-had'),
    });
    assert.equal(done.status, 400);
    assert.match(body, /<code>federated_response_invalid<\/code>/);
    assert.equal(await ownerOf(person.sub), null);
  });

  test('an expired ID token is refused', async () => {
    upstream.clock.advance(-7200);
    try {
      const person = await upstreamPerson(upstream, 'late@corp.dev');
      const { done, body } = await roundTrip(down, person.cookie);
      assert.equal(done.status, 400);
      assert.match(body, /<code>federated_response_invalid<\/code>/);
      assert.equal(await ownerOf(person.sub), null);
    } finally {
      upstream.clock.advance(7200);
    }
  });

  test('the upstream refusing (error=access_denied) ends on a page, not a session', async () => {
    const person = await upstreamPerson(upstream, 'deny@corp.dev');
    const { done, body } = await roundTrip(down, person.cookie, {
      tamperCallback: (url) => {
        url.searchParams.delete('code');
        url.searchParams.set('error', 'access_denied');
      },
    });
    assert.equal(done.status, 400);
    assert.match(body, /<code>federated_denied<\/code>/);
  });

  test('a return_to that is not a local path is refused before anything starts', async () => {
    const stored = async () => Number((await down.sql`select count(*)::int as n from federated_transactions`)[0]?.n);
    const before = await stored();
    for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const response = await fetch(
        `${down.url}/auth/federated/start?provider=corp&return_to=${encodeURIComponent(returnTo)}`,
        { redirect: 'manual' },
      );
      assert.equal(response.status, 400, returnTo);
      assert.match(await response.text(), /return_to must be a local path/);
      assert.equal(response.headers.get('set-cookie'), null);
    }
    assert.equal(await stored(), before);
  });

  test('an unknown or deferred provider is not offered: 404 page', async () => {
    const response = await fetch(`${down.url}/auth/federated/start?provider=github`, { redirect: 'manual' });
    assert.equal(response.status, 404);
    assert.match(await response.text(), /<code>provider_not_available<\/code>/);
  });
});

describe('generic OpenID Connect provider: sign-up closed and trusted upstream MFA', async () => {
  const upstream = await startUpstream();

  test('with self-service sign-up off, an unknown upstream account gets a 403 page and no identity', async () => {
    const down = await startDownstream(upstream, () => ({ self_service: { enabled: false } }));
    const person = await upstreamPerson(upstream, 'closed@corp.dev');
    const { done, body } = await roundTrip(down, person.cookie);
    assert.equal(done.status, 403);
    assert.match(body, /No account is linked to this sign-in/);
    assert.equal(Number((await down.sql`select count(*)::int as n from identities`)[0]?.n), 0);
  });

  test('a provider trusted for MFA gives aal2 only when its amr says mfa; an untrusted one never does', async () => {
    const trusted = await startDownstream(upstream, () => ({ trustUpstreamMfa: true }));
    const sub = (await upstreamPerson(upstream, 'mfa@corp.dev')).sub;
    // The upstream Gatehouse reports amr ["pwd","otp"] for this aal2 session; "mfa" needs an explicit claim, so aal1.
    const { makeSession: session } = await import('../helpers/oauth-fixtures.ts');
    const withMfa = await session(upstream, sub, { amr: ['pwd', 'otp', 'mfa'] });
    await roundTrip(trusted, withMfa.cookie);
    const [row] = await trusted.sql`select aal, amr from sessions`;
    assert.deepEqual({ ...row }, { aal: 'aal2', amr: ['fed', 'mfa'] });
    const untrusted = await startDownstream(upstream);
    await roundTrip(untrusted, withMfa.cookie);
    const [plain] = await untrusted.sql`select aal, amr from sessions`;
    assert.deepEqual({ ...plain }, { aal: 'aal1', amr: ['fed'] });
  });
});
