// Which attributes name a new identity (person-attributes.ts), through a real sign-in at the ACS: the default
// settings read the OID names pysaml2 and Shibboleth send, fall back to givenName + sn, and a name the operator
// sets is used alone.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeKeyPair, startTestIdp } from '../../../test/helpers/saml-idp.ts';
import { type Person, samlConnection, spMoves, startSamlApp } from '../../../test/helpers/saml-sp.ts';

const sp = makeKeyPair('gatehouse-sp');
const person: Person = { nameId: '', attributes: {} };
const idp = await startTestIdp({ spCert: sp.cert, person: () => person });
after(() => idp.stop());

describe('SAML attributes of a new identity (POST /auth/saml/<id>/acs)', async () => {
  const t = await startSamlApp(sp, { corp: samlConnection(idp) });
  const { start, idpAnswer, post, methodOwner } = spMoves(t, sp, idp, person);
  /** Signs `who` in through a fresh round trip; the new identity's display name and (unverified) address. */
  async function signIn(who: Person) {
    Object.assign(person, who);
    const { cookie, location } = await start();
    const response = await post(cookie, await idpAnswer(location));
    assert.equal(response.statusCode, 303, response.body);
    const owner = (await methodOwner(who.nameId)) as string;
    const [identity] = await t.sql`select display_name from identities where id = ${owner}`;
    const emails = await t.sql`select address, verified_at from emails where identity_id = ${owner}`;
    return { name: identity?.display_name, emails: emails.map((e) => [e.address, e.verified_at]) };
  }

  it('reads mail and displayName by their OID names (urn:oid:...), as pysaml2 and Shibboleth send them', async () => {
    const seen = await signIn({
      nameId: 'oid-1',
      attributes: {
        'urn:oid:0.9.2342.19200300.100.1.3': 'grace@corp.example',
        'urn:oid:2.16.840.1.113730.3.1.241': 'Grace Hopper',
      },
    });
    assert.deepEqual(seen, { name: 'Grace Hopper', emails: [['grace@corp.example', null]] });
  });

  it('falls back to givenName and sn together when no display name is sent', async () => {
    const seen = await signIn({
      nameId: 'oid-2',
      attributes: { mail: 'alan@corp.example', 'urn:oid:2.5.4.42': 'Alan', 'urn:oid:2.5.4.4': 'Turing' },
    });
    assert.deepEqual(seen, { name: 'Alan Turing', emails: [['alan@corp.example', null]] });
  });
});

describe('SAML attributes the operator named', async () => {
  const t = await startSamlApp(sp, {
    corp: samlConnection(idp, { email_attribute: 'workEmail', display_name_attribute: 'fullName' }),
  });
  const { start, idpAnswer, post, methodOwner } = spMoves(t, sp, idp, person);

  it('uses the named attributes alone: the common names no longer count', async () => {
    Object.assign(person, {
      nameId: 'named-1',
      attributes: { mail: 'not-this@corp.example', displayName: 'Not This', workEmail: 'w@corp.example' },
    });
    const { cookie, location } = await start();
    assert.equal((await post(cookie, await idpAnswer(location))).statusCode, 303);
    const owner = (await methodOwner('named-1')) as string;
    const [identity] = await t.sql`select display_name from identities where id = ${owner}`;
    // No fullName: the NameID, as before.
    assert.equal(identity?.display_name, 'named-1');
    const emails = await t.sql`select address from emails where identity_id = ${owner}`;
    assert.deepEqual(
      emails.map((e) => e.address),
      ['w@corp.example'],
    );
  });
});
