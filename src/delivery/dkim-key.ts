// The DKIM public key record an operator publishes at <selector>._domainkey.<domain> (RFC 6376 §3.6.1),
// derived from the configured private key, and the comparison doctor makes against what DNS holds.
import { createPublicKey } from 'node:crypto';

/** RSA keys only: nodemailer signs rsa-sha256 (RFC 6376 §3.3); Ed25519 (RFC 8463) is not offered. */
export function dkimPublicKey(privateKeyPem: string): string {
  const key = createPublicKey(privateKeyPem);
  if (key.asymmetricKeyType !== 'rsa') throw new Error('the DKIM key must be an RSA key');
  return key.export({ type: 'spki', format: 'der' }).toString('base64');
}

export function dkimRecord(privateKeyPem: string): string {
  return `v=DKIM1; k=rsa; p=${dkimPublicKey(privateKeyPem)}`;
}

/** Tag=value pairs of a DKIM or DMARC record (RFC 6376 §3.2), with whitespace inside values removed. */
export function parseTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    tags.set(part.slice(0, index).trim().toLowerCase(), part.slice(index + 1).replace(/\s+/g, ''));
  }
  return tags;
}

/** True when a published record carries the public half of the configured key. */
export function recordHoldsKey(record: string, privateKeyPem: string): boolean {
  return parseTags(record).get('p') === dkimPublicKey(privateKeyPem);
}
