// SP-initiated SAML sign-in against an identity provider running in the test (test/helpers/saml-idp.ts, signing
// with its own key), through the real app and PostgreSQL: the happy paths (signed assertion, signed response,
// encrypted assertion, aal2 only when configured), the identity rules, and each known attack refused with its code.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sessionCookieFor } from '../../../test/helpers/accounts.ts';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { makeConfig } from '../../../test/helpers/config.ts';
import { providerSecretsDir } from '../../../test/helpers/provider-secrets.ts';
import {
  buildAssertion,
  buildResponse,
  encryptAssertion,
  makeKeyPair,
  readAuthnRequest,
  samlId,
  signElement,
  startTestIdp,
} from '../../../test/helpers/saml-idp.ts';
import type { Config } from '../../config/schema.ts';
import type { Sub } from '../../identity/ids.ts';

const sp = makeKeyPair('gatehouse-sp');
const person = { nameId: 'u-1001', attributes: { email: 'ada@corp.example', displayName: 'Ada Lovelace' } };
const idp = await startTestIdp({ spCert: sp.cert, person: () => person });
after(() => idp.stop());
const MFA = 'https://refeds.org/profile/mfa';

const connection = (overrides: Partial<Config['saml'][string]> = {}): Config['saml'][string] => ({
  name: 'Corp SSO',
  idp_metadata_file: '',
  idp_entity_id: idp.entityId,
  idp_sso_url: idp.ssoUrl,
  idp_certificate_files: [idp.keys.certFile],
  email_domains: ['corp.example'],
  display_name_attribute: 'displayName',
  email_attribute: 'email',
  sign_up: true,
  mfa_authn_contexts: [MFA],
  ...overrides,
});

async function appWith(saml: Config['saml']): Promise<TestApp> {
  const files = Object.fromEntries(
    Object.keys(saml).flatMap((id) => [
      [`saml-${id}.key`, sp.key],
      [`saml-${id}.crt`, sp.cert],
    ]),
  );
  const config = makeConfig({ secrets: { dir: providerSecretsDir(files) } });
  config.saml = saml;
  return await startTestApp({ config });
}

const envelope = (response: { json(): unknown; headers: Record<string, unknown> }, error: string) => {
  const body = response.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'request_id']);
  assert.equal(body.error, error);
  assert.equal(body.request_id, response.headers['x-request-id']);
};

describe('SAML service provider: /auth/saml/<id>/start and /acs', async () => {
  const t = await appWith({ corp: connection() });
  const base = t.config.server.issuer;
  const acs = `${base}/auth/saml/corp/acs`;
  const entityId = `${base}/auth/saml/corp/metadata`;

  /** Starts a sign-in in a fresh "browser": its cookie and the AuthnRequest the IdP received. */
  async function start(returnTo = '/settings') {
    const response = await t.app.inject({ url: `/auth/saml/corp/start?return_to=${encodeURIComponent(returnTo)}` });
    assert.equal(response.statusCode, 302, response.body + t.logs.text.slice(-1500));
    const location = new URL(String(response.headers.location));
    const cookie = String(response.headers['set-cookie']).split(';')[0] as string;
    return { cookie, location, request: readAuthnRequest(location.search.slice(1), sp.cert) };
  }

  /** What the IdP would answer, fetched over HTTP like the browser does, and the SAMLResponse it carries. */
  async function idpAnswer(location: URL): Promise<string> {
    const page = await (await fetch(location)).text();
    return Buffer.from(/name="SAMLResponse" value="([^"]+)"/.exec(page)?.[1] ?? '', 'base64').toString();
  }

  const post = (cookie: string | null, xml: string, accept = 'application/json') =>
    t.app.inject({
      method: 'POST',
      url: '/auth/saml/corp/acs',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept, ...(cookie ? { cookie } : {}) },
      payload: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64') }).toString(),
    });

  /** A well-formed answer to `requestId`, built here so a test can change one thing. */
  const assertionFor = (requestId: string | null, overrides: Partial<Parameters<typeof buildAssertion>[0]> = {}) =>
    buildAssertion({
      issuer: idp.entityId,
      nameId: person.nameId,
      audience: entityId,
      recipient: acs,
      inResponseTo: requestId,
      now: new Date(),
      attributes: person.attributes,
      ...overrides,
    });
  const responseFor = (requestId: string | null, inner: string, destination: string | null = acs) =>
    buildResponse({ issuer: idp.entityId, destination, inResponseTo: requestId, now: new Date() }, inner);

  const identities = async () => Number((await t.sql`select count(*)::int as n from identities`)[0]?.n);
  const methodOwner = async (subject: string) =>
    (await t.sql`select identity_id from sign_in_methods where kind = 'saml' and external_subject = ${subject}`)[0]
      ?.identity_id as string | undefined;

  it('publishes SP metadata with the entity id, the ACS for HTTP-POST and our certificate', async () => {
    const response = await t.app.inject({ url: '/auth/saml/corp/metadata' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/samlmetadata\+xml/);
    assert.match(response.body, new RegExp(`entityID="${entityId}"`));
    assert.match(response.body, /AuthnRequestsSigned="true"/);
    assert.match(
      response.body,
      new RegExp(`Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${acs}"`),
    );
    const certBody = sp.cert.replace(/-----[A-Z ]+-----|\s/g, '');
    assert.ok(response.body.replace(/\s/g, '').includes(certBody));
    assert.match(response.body, /use="encryption"/);
  });

  it('sends a signed AuthnRequest by HTTP-Redirect and signs the person in at the ACS with a 303 to return_to', async () => {
    const { cookie, location, request } = await start('/settings');
    assert.equal(location.origin + location.pathname, idp.ssoUrl);
    assert.equal(request.acsUrl, acs);
    assert.equal(request.issuer, entityId);
    const response = await post(cookie, await idpAnswer(location), 'text/html');
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(response.headers.location, '/settings');
    const session = String(response.headers['set-cookie']);
    assert.match(session, /gatehouse_session=/);
    const owner = await methodOwner('u-1001');
    assert.ok(owner);
    const [identity] = await t.sql`select display_name from identities where id = ${owner as string}`;
    assert.equal(identity?.display_name, 'Ada Lovelace');
    // The asserted email is kept unverified: the IdP's word proves nothing about who reads that mailbox.
    const [email] = await t.sql`select address, verified_at from emails where identity_id = ${owner as string}`;
    assert.deepEqual([email?.address, email?.verified_at], ['ada@corp.example', null]);
    const [row] = await t.sql`select aal, amr from sessions where identity_id = ${owner as string}`;
    assert.deepEqual([row?.aal, row?.amr], ['aal1', ['fed']]);
  });

  it('signs the same person in again as the same identity, and a signed Response (assertion unsigned) is accepted', async () => {
    const before = await identities();
    const { cookie, request } = await start();
    const xml = signElement(responseFor(request.id, assertionFor(request.id)), 'Response', idp.keys);
    const response = await post(cookie, xml);
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(await identities(), before);
  });

  it('accepts an encrypted assertion, decrypted with our key', async () => {
    const { cookie, request } = await start();
    const encrypted = await encryptAssertion(signElement(assertionFor(request.id), 'Assertion', idp.keys), sp.cert);
    const response = await post(cookie, responseFor(request.id, encrypted));
    assert.equal(response.statusCode, 303, response.body);
  });

  it('counts aal2 only when the signed AuthnContext names a configured MFA context', async () => {
    await t.sql`delete from sessions`;
    const { cookie, request } = await start();
    const xml = responseFor(
      request.id,
      signElement(assertionFor(request.id, { authnContext: MFA }), 'Assertion', idp.keys),
    );
    const response = await post(cookie, xml);
    assert.equal(response.statusCode, 303, response.body);
    const [row] = await t.sql`select aal, amr from sessions`;
    assert.deepEqual([row?.aal, row?.amr], ['aal2', ['fed', 'mfa']]);
  });

  it('refuses an unsigned response and assertion with saml_response_invalid', async () => {
    const { cookie, request } = await start();
    const response = await post(cookie, responseFor(request.id, assertionFor(request.id)));
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_response_invalid');
  });

  it('refuses XML signature wrapping: a forged assertion beside the signed original', async () => {
    const { cookie, request } = await start();
    const original = signElement(assertionFor(request.id), 'Assertion', idp.keys);
    const forged = assertionFor(request.id, { nameId: 'u-admin', id: samlId() });
    // The signed original moves into Extensions, where a careless verifier finds its signature valid.
    const wrapped = responseFor(request.id, `<samlp:Extensions>${original}</samlp:Extensions>${forged}`);
    const response = await post(cookie, wrapped);
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_response_invalid');
    assert.equal(await methodOwner('u-admin'), undefined);
  });

  it('refuses XML signature wrapping: the signed original nested inside a forged assertion with the same ID', async () => {
    const { cookie, request } = await start();
    const original = signElement(assertionFor(request.id), 'Assertion', idp.keys);
    const id = /ID="([^"]+)"/.exec(original)?.[1] as string;
    const forged = assertionFor(request.id, { nameId: 'u-admin', id }).replace(
      '</saml:Subject>',
      `</saml:Subject><saml:Advice>${original}</saml:Advice>`,
    );
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(original)?.[0] as string;
    const moved = forged.replace('</saml:Issuer>', `</saml:Issuer>${signature}`);
    const response = await post(cookie, responseFor(request.id, moved));
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_response_invalid');
    assert.equal(await methodOwner('u-admin'), undefined);
  });

  it('reads the whole NameID when a comment splits it (comment injection), so it cannot become another person', async () => {
    // The victim signs in once: (corp, "victim@corp.example") belongs to them.
    const first = await start();
    const victim = signElement(
      assertionFor(first.request.id, { nameId: 'victim@corp.example' }),
      'Assertion',
      idp.keys,
    );
    assert.equal((await post(first.cookie, responseFor(first.request.id, victim))).statusCode, 303);
    const victimId = await methodOwner('victim@corp.example');
    await t.sql`delete from sessions`;
    // The attacker holds an IdP account "victim@corp.example.evil.test" and splits it with a comment after signing:
    // exclusive c14n drops comments, so the signature still verifies.
    const { cookie, request } = await start();
    const signed = signElement(
      assertionFor(request.id, { nameId: 'victim@corp.example.evil.test' }),
      'Assertion',
      idp.keys,
    );
    const injected = signed.replace('victim@corp.example.evil.test', 'victim@corp.example<!---->.evil.test');
    const response = await post(cookie, responseFor(request.id, injected));
    assert.equal(response.statusCode, 303, response.body);
    const session = String(response.headers['set-cookie']);
    const [row] = await t.sql`select identity_id from sessions`;
    assert.ok(session.includes('gatehouse_session='));
    assert.notEqual(row?.identity_id, victimId);
    assert.equal(row?.identity_id, await methodOwner('victim@corp.example.evil.test'));
  });

  it('refuses an unsigned assertion inside a response carrying the signature of another document', async () => {
    const { cookie, request } = await start();
    // A genuinely signed Response of another sign-in, whose signature references that document's ID.
    const other = signElement(responseFor(samlId(), assertionFor(samlId())), 'Response', idp.keys);
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(other)?.[0] as string;
    const forged = responseFor(request.id, assertionFor(request.id, { nameId: 'u-admin' })).replace(
      '</saml:Issuer>',
      `</saml:Issuer>${signature}`,
    );
    const response = await post(cookie, forged);
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_response_invalid');
    assert.equal(await methodOwner('u-admin'), undefined);
  });

  it("refuses a response signed by another IdP's key, even when it carries that key in KeyInfo", async () => {
    const other = makeKeyPair('other-idp');
    const { cookie, request } = await start();
    const response = await post(
      cookie,
      responseFor(request.id, signElement(assertionFor(request.id, { nameId: 'u-admin' }), 'Assertion', other)),
    );
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_response_invalid');
    assert.equal(await methodOwner('u-admin'), undefined);
  });

  it('refuses a replayed response with saml_request_unknown (its request was taken by the first use)', async () => {
    const { cookie, location } = await start();
    const xml = await idpAnswer(location);
    assert.equal((await post(cookie, xml)).statusCode, 303);
    const again = await post(cookie, xml);
    assert.equal(again.statusCode, 400);
    envelope(again, 'saml_request_unknown');
  });

  it('refuses an assertion ID seen before with saml_assertion_replayed, even answering a new request', async () => {
    const id = samlId();
    const first = await start();
    const a = signElement(assertionFor(first.request.id, { id }), 'Assertion', idp.keys);
    assert.equal((await post(first.cookie, responseFor(first.request.id, a))).statusCode, 303);
    const second = await start();
    const b = signElement(assertionFor(second.request.id, { id }), 'Assertion', idp.keys);
    const response = await post(second.cookie, responseFor(second.request.id, b));
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_assertion_replayed');
  });

  it('refuses a response for another SP: another Audience, another Recipient, another Destination', async () => {
    for (const [overrides, destination] of [
      [{ audience: 'https://other-sp.example/metadata' }, acs],
      [{ recipient: 'https://other-sp.example/acs' }, acs],
      [{}, 'https://other-sp.example/acs'],
    ] as const) {
      const { cookie, request } = await start();
      const signed = signElement(assertionFor(request.id, overrides), 'Assertion', idp.keys);
      const response = await post(cookie, responseFor(request.id, signed, destination));
      assert.equal(response.statusCode, 400, JSON.stringify(overrides));
      envelope(response, 'saml_response_invalid');
    }
  });

  it('refuses a response from another browser (no cookie, or another one) and an IdP-initiated response', async () => {
    const { request } = await start();
    const other = await start();
    const signed = signElement(assertionFor(request.id), 'Assertion', idp.keys);
    envelope(await post(null, responseFor(request.id, signed)), 'saml_request_unknown');
    envelope(await post(other.cookie, responseFor(request.id, signed)), 'saml_request_unknown');
    // Unsolicited: no InResponseTo anywhere.
    const unsolicited = signElement(assertionFor(null), 'Assertion', idp.keys);
    const response = await post(other.cookie, responseFor(null, unsolicited));
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_request_unknown');
  });

  it('refuses an assertion outside its time window beyond two minutes of skew', async () => {
    const { cookie, request } = await start();
    const stale = new Date(Date.now() - 10 * 60_000);
    const signed = signElement(assertionFor(request.id, { now: stale, lifetime: 300 }), 'Assertion', idp.keys);
    const response = await post(cookie, responseFor(request.id, signed));
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_response_invalid');
  });

  it('refuses a DOCTYPE with an external entity (XXE) or entity expansion (billion laughs) before parsing', async () => {
    const { cookie, request } = await start();
    const signed = signElement(assertionFor(request.id), 'Assertion', idp.keys);
    const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${responseFor(request.id, signed)}`;
    const response = await post(cookie, xxe);
    assert.equal(response.statusCode, 400);
    envelope(response, 'saml_xml_refused');
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>' +
      responseFor(request.id, signed.replace(person.nameId, '&lol3;'));
    const refused = await post(cookie, laughs);
    assert.equal(refused.statusCode, 400);
    envelope(refused, 'saml_xml_refused');
  });

  it('shows a browser the refusal as a page with the code', async () => {
    const { cookie, request } = await start();
    const response = await post(cookie, responseFor(request.id, assertionFor(request.id)), 'text/html');
    assert.equal(response.statusCode, 400);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /<code>saml_response_invalid<\/code>/);
  });

  it('refuses return_to outside this site and an unknown connection with the envelope', async () => {
    const bad = await t.app.inject({ url: '/auth/saml/corp/start?return_to=https%3A%2F%2Fevil.example%2F' });
    assert.equal(bad.statusCode, 400);
    envelope(bad, 'invalid_request');
    const unknown = await t.app.inject({ url: '/auth/saml/nope/metadata' });
    assert.equal(unknown.statusCode, 404);
    envelope(unknown, 'saml_connection_unknown');
  });

  it("answers POST /auth/login for a subject in the connection's domain with where to sign in", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { origin: base },
      payload: { subject: 'Someone@Corp.Example' },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { sign_in_url: '/auth/saml/corp/start' });
  });

  describe('GET /auth/saml/<id>/link (linking to the signed-in identity)', () => {
    const signedIn = async () => {
      const [row] = await t.sql<{ id: Sub }[]>`insert into identities (id, display_name, assurance, state)
        values (${`usr_${samlId().slice(1, 23)}`}, 'Linker', 'ial1', 'active') returning id`;
      const sub = (row as { id: Sub }).id;
      return { sub, session: await sessionCookieFor(t.sql, sub, { aal: 'aal1', now: t.clock.now() }) };
    };
    const linkStart = async (session: string) => {
      const response = await t.app.inject({ url: '/auth/saml/corp/link', headers: { cookie: session } });
      assert.equal(response.statusCode, 302, response.body);
      const location = new URL(String(response.headers.location));
      const cookie = String(response.headers['set-cookie']).split(';')[0] as string;
      return { cookie, request: readAuthnRequest(location.search.slice(1), sp.cert) };
    };
    const answer = (requestId: string, nameId: string) =>
      responseFor(requestId, signElement(assertionFor(requestId, { nameId }), 'Assertion', idp.keys));

    it('links the NameID to the signed-in identity and returns to settings; signing in with it then finds them', async () => {
      const person = await signedIn();
      const { cookie, request } = await linkStart(person.session);
      const response = await post(`${cookie}; ${person.session}`, answer(request.id, 'u-link-1'));
      assert.equal(response.statusCode, 303, response.body);
      assert.equal(response.headers.location, '/settings');
      assert.equal(await methodOwner('u-link-1'), person.sub);
      const again = await start();
      assert.equal((await post(again.cookie, answer(again.request.id, 'u-link-1'))).statusCode, 303);
      // The linking session plus the one this SAML sign-in started: both are the linked identity's.
      assert.equal((await t.sql`select count(*)::int as n from sessions where identity_id = ${person.sub}`)[0]?.n, 2);
    });

    it('refuses a NameID another identity holds with 409 method_conflict, and a link finished by another session', async () => {
      const person = await signedIn();
      const taken = await linkStart(person.session);
      const conflict = await post(`${taken.cookie}; ${person.session}`, answer(taken.request.id, 'u-1001'));
      assert.equal(conflict.statusCode, 409);
      envelope(conflict, 'method_conflict');
      assert.notEqual(await methodOwner('u-1001'), person.sub);

      const other = await signedIn();
      const started = await linkStart(person.session);
      const elsewhere = await post(`${started.cookie}; ${other.session}`, answer(started.request.id, 'u-link-2'));
      assert.equal(elsewhere.statusCode, 400);
      envelope(elsewhere, 'saml_request_unknown');
      assert.equal(await methodOwner('u-link-2'), undefined);
    });

    it('sends a signed-out browser to sign in first, coming back to the link', async () => {
      const response = await t.app.inject({ url: '/auth/saml/corp/link?return_to=%2Fsettings' });
      assert.equal(response.statusCode, 302);
      assert.equal(
        response.headers.location,
        `/signin?return_to=${encodeURIComponent('/auth/saml/corp/link?return_to=%2Fsettings')}`,
      );
    });
  });
});

describe('SAML sign-up switch', async () => {
  const t = await appWith({ corp: connection({ sign_up: false }) });
  it('refuses an unknown person with 403 saml_signup_closed when sign_up is false', async () => {
    const started = await t.app.inject({ url: '/auth/saml/corp/start' });
    const location = new URL(String(started.headers.location));
    const cookie = String(started.headers['set-cookie']).split(';')[0] as string;
    const page = await (await fetch(location)).text();
    const samlResponse = /name="SAMLResponse" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/saml/corp/acs',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      payload: new URLSearchParams({ SAMLResponse: samlResponse }).toString(),
    });
    assert.equal(response.statusCode, 403, response.body);
    envelope(response, 'saml_signup_closed');
    assert.equal(Number((await t.sql`select count(*)::int as n from identities`)[0]?.n), 0);
  });
});

describe('SAML mfa_authn_contexts left empty (the default)', async () => {
  const t = await appWith({ corp: connection({ mfa_authn_contexts: [] }) });
  it("keeps a sign-in aal1 even when the identity provider's AuthnContext says MFA", async () => {
    const base = t.config.server.issuer;
    const started = await t.app.inject({ url: '/auth/saml/corp/start' });
    const cookie = String(started.headers['set-cookie']).split(';')[0] as string;
    const request = readAuthnRequest(new URL(String(started.headers.location)).search.slice(1), sp.cert);
    const assertion = buildAssertion({
      issuer: idp.entityId,
      nameId: 'u-2002',
      audience: `${base}/auth/saml/corp/metadata`,
      recipient: `${base}/auth/saml/corp/acs`,
      inResponseTo: request.id,
      now: new Date(),
      authnContext: MFA,
    });
    const xml = buildResponse(
      { issuer: idp.entityId, destination: `${base}/auth/saml/corp/acs`, inResponseTo: request.id, now: new Date() },
      signElement(assertion, 'Assertion', idp.keys),
    );
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/saml/corp/acs',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      payload: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64') }).toString(),
    });
    assert.equal(response.statusCode, 303, response.body);
    const [row] = await t.sql`select aal, amr from sessions`;
    assert.deepEqual([row?.aal, row?.amr], ['aal1', ['fed']]);
  });
});
