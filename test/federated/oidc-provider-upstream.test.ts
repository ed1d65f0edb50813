// Sign-in, linking and the no-merge-by-email rule with panva's oidc-provider as the generic OpenID Connect upstream
// `corp`: a real third-party provider (its discovery, its own sign-in and consent pages, client_secret_basic at its
// token endpoint, opaque access tokens, claims only at its userinfo endpoint) on a loopback port, with a client
// registered for the downstream's shared callback. A CookieJar plays the browser at both ends.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, describe, test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { startDownstreamWith, type UpstreamRegistration } from '../helpers/federation.ts';
import { makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

interface Account {
  email: string;
  name: string;
}

/** oidc-provider with one client, for `callback`; its accounts are `accounts`, keyed by the login typed in. */
async function startOidcProvider(callback: string, accounts: Map<string, Account>): Promise<UpstreamRegistration> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const secret = 'oidc-provider-client-secret-for-gatehouse-0001';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'gatehouse', client_secret: secret, redirect_uris: [callback] }],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['oidc-provider-cookie-key-for-the-test-0001'] },
    claims: { email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_context: unknown, id: string) => {
      const account = accounts.get(id);
      return account && { accountId: id, claims: () => ({ sub: id, ...account, email_verified: true }) };
    },
  });
  server.on('request', provider.callback());
  return { issuer, clientId: 'gatehouse', secret };
}

/** The person's browser at the provider: follows redirects, fills in its sign-in form and its consent form. */
async function signInUpstream(authorize: URL, login: string) {
  const jar = new CookieJar();
  const pages: string[] = [];
  let response = await jar.fetch(authorize);
  let at = authorize;
  for (let step = 0; step < 12; step++) {
    const location = response.headers.get('location');
    if (location) {
      at = new URL(location, at);
      if (at.origin !== authorize.origin) return { callback: at, pages };
      response = await jar.fetch(at);
      continue;
    }
    const page = await response.text();
    pages.push(page);
    const action = /<form[^>]* action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (!action || !prompt) throw new Error(`the provider answered ${response.status}: ${page.slice(0, 400)}`);
    const form: Record<string, string> =
      prompt === 'login' ? { prompt, login, password: 'whatever the dev form takes' } : { prompt };
    at = new URL(action, at);
    response = await jar.fetch(at, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }
  throw new Error('the provider never redirected back');
}

describe("panva's oidc-provider as the generic OpenID Connect upstream", async () => {
  const accounts = new Map<string, Account>([
    ['grace', { email: 'grace@corp.dev', name: 'Grace Hopper' }],
    ['mary', { email: 'mary@corp.dev', name: 'Mary Jackson' }],
    ['twin-a', { email: 'twin@corp.dev', name: 'Twin A' }],
    ['twin-b', { email: 'twin@corp.dev', name: 'Twin B' }],
  ]);
  const down = await startDownstreamWith((callback) => startOidcProvider(callback, accounts));

  const ownerOf = async (externalSubject: string) =>
    (
      await down.sql<{ identity_id: string }[]>`
        select identity_id from sign_in_methods where kind = 'federated' and provider = 'corp'
          and external_subject = ${externalSubject}`
    )[0]?.identity_id ?? null;
  const connectionsOf = async (jar: CookieJar) => {
    const response = await jar.fetch(`${down.url}/account/connections`);
    const body = (await response.json()) as { connections?: { kind: string; provider: string; label: string }[] };
    return { status: response.status, labels: body.connections?.map((c) => `${c.kind}:${c.provider}:${c.label}`) };
  };
  /** Start at Gatehouse, sign in at oidc-provider as `login`, come back to the shared callback. */
  const roundTrip = async (login: string, start: string, jar = new CookieJar()) => {
    const started = await jar.fetch(`${down.url}${start}`);
    assert.equal(started.status, 302, await started.clone().text());
    const { callback, pages } = await signInUpstream(new URL(started.headers.get('location') ?? ''), login);
    const done = await jar.fetch(callback);
    return { jar, pages, done, body: await done.text() };
  };

  test('an unknown upstream account signs up through its sign-in page: a new identity keyed to its sub, with the email from userinfo', async () => {
    const { done, pages, jar } = await roundTrip('grace', '/auth/federated/start?provider=corp&return_to=%2Fsettings');
    assert.match(pages[0] ?? '', /<h1>Sign-in<\/h1>/);
    assert.match(pages[1] ?? '', /<h1>Authorize<\/h1>/);
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/settings');
    const sub = await ownerOf('grace');
    assert.ok(sub);
    const [email] =
      await down.sql`select address, verified_at is not null as verified from emails where identity_id = ${sub}`;
    assert.deepEqual({ ...email }, { address: 'grace@corp.dev', verified: true });
    assert.deepEqual(await connectionsOf(jar), { status: 200, labels: ['federated:corp:grace@corp.dev'] });
  });

  test('a signed-in identity links its upstream account from the account page and lists it there', async () => {
    const sub = await makeIdentity(down.sql, { email: 'mary@acme.dev' });
    await down.sql`insert into sign_in_methods (identity_id, kind, provider, external_subject)
                   values (${sub}, 'password', 'local', 'mary@acme.dev')`;
    const jar = new CookieJar();
    jar.take(new Response(null, { headers: { 'set-cookie': `${(await makeSession(down, sub)).cookie}; Path=/` } }));
    const { done } = await roundTrip(
      'mary',
      '/account/connections/start?provider=corp&return_to=%2Fsettings%3Flinked%3Dcorp',
      jar,
    );
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/settings?linked=corp');
    assert.equal(await ownerOf('mary'), sub);
    const listed = await connectionsOf(jar);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.labels?.map((label) => label.split(':').slice(0, 2).join(':')),
      ['password:local', 'federated:corp'],
    );
    assert.ok(listed.labels?.includes('federated:corp:mary@corp.dev'));
  });

  test('a second upstream account with the same email is not signed in to the first one’s identity: 409, no session', async () => {
    const first = await roundTrip('twin-a', '/auth/federated/start?provider=corp&return_to=%2Fsettings');
    assert.equal(first.done.status, 303);
    const firstSub = await ownerOf('twin-a');
    assert.ok(firstSub);
    const second = await roundTrip('twin-b', '/auth/federated/start?provider=corp&return_to=%2Fsettings');
    assert.equal(second.done.status, 409);
    assert.match(second.body, /This email address belongs to an existing account/);
    assert.equal(await ownerOf('twin-b'), null);
    assert.equal((await connectionsOf(second.jar)).status, 401);
    assert.deepEqual(await connectionsOf(first.jar), { status: 200, labels: ['federated:corp:twin@corp.dev'] });
  });
});
