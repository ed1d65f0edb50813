// Each known attack on a SAML service provider, against the real app, refused with its own code (the reason node-saml
// or response-checks.ts gave is in the log only): signature wrapping, comment injection in the NameID, an unsigned
// assertion under another document's signature, another IdP's key, replays, a response for another SP, another
// browser or no request at all (IdP-initiated), an expired assertion, and DTDs (XXE, billion laughs).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeKeyPair, samlId, signElement, startTestIdp } from '../../../test/helpers/saml-idp.ts';
import { assertEnvelope as envelope, samlConnection, spMoves, startSamlApp } from '../../../test/helpers/saml-sp.ts';

const sp = makeKeyPair('gatehouse-sp');
const person = { nameId: 'u-1001', attributes: { email: 'ada@corp.example', displayName: 'Ada Lovelace' } };
const idp = await startTestIdp({ spCert: sp.cert, person: () => person });
after(() => idp.stop());

describe('SAML service provider: POST /auth/saml/<id>/acs refuses known attacks', async () => {
  const t = await startSamlApp(sp, { corp: samlConnection(idp) });
  const { acs, start, idpAnswer, post, assertionFor, responseFor, methodOwner } = spMoves(t, sp, idp, person);

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
    const [record] = await t.sql`select details from audit_events
                                 where event = 'signin.failed' and request_id = ${String(response.headers['x-request-id'])}`;
    assert.deepEqual(record?.details, { method: 'saml', connection: 'corp', reason: 'saml_response_invalid' });
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
});
