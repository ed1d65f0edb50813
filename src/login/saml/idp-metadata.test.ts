import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { startTestIdp } from '../../../test/helpers/saml-idp.ts';
import { parseIdpMetadata } from './idp-metadata.ts';

const idp = await startTestIdp({ spCert: '', person: () => ({ nameId: 'n', attributes: {} }) });
after(() => idp.stop());

describe('IdP metadata (idp_metadata_file)', () => {
  it('reads the entityID, the HTTP-Redirect SingleSignOnService and the signing certificate', () => {
    const metadata = parseIdpMetadata(idp.metadataXml);
    assert.equal(metadata.entityId, idp.entityId);
    assert.equal(metadata.ssoUrl, idp.ssoUrl);
    assert.equal(metadata.certificates.length, 1);
    assert.equal(
      new X509Certificate(metadata.certificates[0] as string).fingerprint256,
      new X509Certificate(idp.keys.cert).fingerprint256,
    );
  });

  it('refuses a DTD, another root, no HTTP-Redirect binding and no signing key, each with its reason', () => {
    assert.throws(
      () => parseIdpMetadata(`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${idp.metadataXml}`),
      /declares a DTD/,
    );
    assert.throws(() => parseIdpMetadata('<EntitiesDescriptor/>'), /is not one SAML EntityDescriptor/);
    assert.throws(
      () => parseIdpMetadata(idp.metadataXml.replace(/<md:SingleSignOnService [^>]*HTTP-Redirect[^>]*\/>/, '')),
      /has no SingleSignOnService for the HTTP-Redirect binding/,
    );
    assert.throws(
      () => parseIdpMetadata(idp.metadataXml.replace('use="signing"', 'use="encryption"')),
      /has no signing certificate/,
    );
  });
});
