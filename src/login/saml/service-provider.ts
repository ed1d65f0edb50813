// The node-saml service provider for one connection. node-saml builds and signs the AuthnRequest, verifies XML
// signatures against the configured certificates only (never a KeyInfo key), decrypts EncryptedAssertions and checks
// the time window and the Audience; src/login/saml/response-checks.ts adds what it leaves to the caller.
import { type CacheProvider, generateServiceProviderMetadata, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { SamlConnection } from './connection.ts';

/** SAML profiles §4.1.4.3 leave the skew to the deployment; two minutes covers NTP-kept clocks and no more. */
export const CLOCK_SKEW_MS = 120_000;
/** How long an AuthnRequest can be answered: long enough to sign in at the identity provider, then useless. */
export const REQUEST_SECONDS = 600;

/**
 * node-saml asks its cache whether an InResponseTo names a request we sent. The one given here knows only the request
 * a single browser (its cookie) sent to a single connection; `lookup` takes that request from the database.
 */
export const requestCache = (lookup: (id: string) => Promise<Date | null>): CacheProvider => {
  const seen = new Map<string, Promise<Date | null>>();
  return {
    // node-saml asks twice (Response and SubjectConfirmationData); the first ask takes the row, the second reuses it.
    getAsync: async (id) => {
      if (!seen.has(id)) seen.set(id, lookup(id));
      const created = await seen.get(id);
      return created ? created.toISOString() : null;
    },
    saveAsync: async () => null,
    removeAsync: async () => null,
  };
};

export function serviceProvider(connection: SamlConnection, cache: CacheProvider): SAML {
  return new SAML({
    issuer: connection.entityId,
    callbackUrl: connection.acsUrl,
    entryPoint: connection.idpSsoUrl,
    idpCert: connection.idpCertificates,
    audience: connection.entityId,
    privateKey: connection.spKey,
    decryptionPvk: connection.spKey,
    signatureAlgorithm: 'sha256',
    // Either signature is enough (the Response's covers its assertion), but one must verify: node-saml refuses a
    // document where neither the Response nor the Assertion carries a valid signature by a configured certificate.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // Every response must answer a request this browser sent: IdP-initiated (unsolicited) responses are refused.
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_SECONDS * 1000,
    cacheProvider: cache,
    // Let the identity provider choose its NameID format and authentication method.
    identifierFormat: null,
    disableRequestedAuthnContext: true,
  });
}

/** SP metadata: entity id, ACS (HTTP-POST), and our certificate for signing and for encryption. */
export function serviceProviderMetadata(connection: SamlConnection): string {
  return generateServiceProviderMetadata({
    issuer: connection.entityId,
    callbackUrl: connection.acsUrl,
    identifierFormat: null,
    // The keys only tell node-saml that we sign and decrypt; the metadata itself carries the certificate alone.
    privateKey: connection.spKey,
    publicCerts: connection.spCertificate,
    decryptionPvk: connection.spKey,
    decryptionCert: connection.spCertificate,
    wantAssertionsSigned: false,
  });
}
