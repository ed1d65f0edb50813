// SP-initiated SAML sign-in against an identity provider running in the test (test/helpers/saml-idp.ts, signing
// with its own key), through the real app and PostgreSQL: SP metadata, the round trip (signed assertion, signed
// response, encrypted assertion), aal2 only when configured, the sign-up switch, linking, and how refusals read.
// Each attack's refusal: attacks.test.ts.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { enrollTotp, sessionCookieFor } from '../../../test/helpers/accounts.ts';
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
import {
  assertEnvelope as envelope,
  MFA,
  samlConnection,
  spMoves,
  startSamlApp,
} from '../../../test/helpers/saml-sp.ts';
import type { Sub } from '../../identity/ids.ts';

const sp = makeKeyPair('gatehouse-sp');
const person = { nameId: 'u-1001', attributes: { email: 'ada@corp.example', displayName: 'Ada Lovelace' } };
const idp = await startTestIdp({ spCert: sp.cert, person: () => person });
after(() => idp.stop());

describe('SAML service provider: /auth/saml/<id>/metadata, /start, /acs', async () => {
  const t = await startSamlApp(sp, { corp: samlConnection(idp) });
  const { acs, entityId, start, idpAnswer, post, assertionFor, responseFor, identities, methodOwner } = spMoves(
    t,
    sp,
    idp,
    person,
  );
  const base = t.config.server.issuer;

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

  it('sends a person with a second factor to it after a sign-in without MFA; a configured MFA context needs none', async () => {
    const owner = (await methodOwner('u-1001')) as Sub;
    await enrollTotp(t.sql, t.secrets, owner);
    // The clock stands still in tests: one sign-in at a time, so the only session is the latest.
    const latest = async () => {
      const rows = await t.sql<{ aal: string; amr: string[]; pending_step: string | null }[]>`
        select aal, amr, pending_step from sessions where identity_id = ${owner}`;
      await t.sql`delete from sessions`;
      return rows.map((r) => ({ ...r }));
    };
    await t.sql`delete from sessions`;
    const plain = await start('/settings');
    const partial = await post(plain.cookie, await idpAnswer(plain.location), 'text/html');
    assert.equal(partial.statusCode, 303, partial.body);
    assert.equal(partial.headers.location, '/second-factor?return_to=%2Fsettings');
    assert.deepEqual(await latest(), [{ aal: 'aal1', amr: ['fed'], pending_step: 'second_factor' }]);
    const { cookie, request } = await start('/settings');
    const xml = responseFor(
      request.id,
      signElement(assertionFor(request.id, { authnContext: MFA }), 'Assertion', idp.keys),
    );
    const complete = await post(cookie, xml);
    assert.equal(complete.headers.location, '/settings');
    assert.deepEqual(await latest(), [{ aal: 'aal2', amr: ['fed', 'mfa'], pending_step: null }]);
    await t.sql`delete from totp_credentials where identity_id = ${owner}`;
  });
});

describe('SAML sign-up switch', async () => {
  const t = await startSamlApp(sp, { corp: samlConnection(idp, { sign_up: false }) });
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
  const t = await startSamlApp(sp, { corp: samlConnection(idp, { mfa_authn_contexts: [] }) });
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
