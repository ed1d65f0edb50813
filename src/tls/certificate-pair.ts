// A certificate chain and its private key as the HTTPS listener serves them. Every problem names the file it is in,
// so an operator reading the start-up error or the reload warning knows which file to fix.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class TlsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsFileError';
  }
}

export interface CertificatePair {
  /** PEM chain, leaf first. */
  cert: string;
  /** PEM private key. */
  key: string;
  /** The leaf certificate, for expiry and issuer. */
  leaf: X509Certificate;
}

function read(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new TlsFileError(`cannot read the TLS ${what} ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
}

/** Parses and checks a PEM chain and key: each must parse and the key must be the leaf's. */
export function parseCertificatePair(cert: string, key: string, files: { cert: string; key: string }): CertificatePair {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new TlsFileError(`the TLS certificate file ${files.cert} does not hold a PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new TlsFileError(`the TLS key file ${files.key} does not hold a PEM private key`);
  }
  if (!leaf.checkPrivateKey(privateKey))
    throw new TlsFileError(`the TLS key file ${files.key} is not the key of the certificate in ${files.cert}`);
  return { cert, key, leaf };
}

export function readCertificatePair(certFile: string, keyFile: string): CertificatePair {
  return parseCertificatePair(read(certFile, 'certificate file'), read(keyFile, 'key file'), {
    cert: certFile,
    key: keyFile,
  });
}
