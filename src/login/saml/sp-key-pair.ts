// The service provider key pair of a connection made through the admin API: RSA 2048 (node-saml decrypts
// EncryptedAssertions with RSA-OAEP and signs AuthnRequests with RSA-SHA256), its certificate self-signed, as SAML
// metadata certificates are: the identity provider trusts the key it was given, not a certificate chain.
import { KeyObject, webcrypto } from 'node:crypto';
import { X509CertificateGenerator } from '@peculiar/x509';

/** Long enough that no owner has to roll it over in the normal run of things; the console shows its expiry. */
const VALIDITY_YEARS = 10;

export async function generateSpKeyPair(commonName: string, now: Date): Promise<{ key: string; certificate: string }> {
  const algorithm = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + VALIDITY_YEARS);
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
      name: `CN=${commonName}`,
      notBefore: now,
      notAfter,
      signingAlgorithm: algorithm,
      keys: keys as never,
    },
    webcrypto as never,
  );
  const key = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { key: `${key.trim()}\n`, certificate: `${certificate.toString('pem').trim()}\n` };
}
