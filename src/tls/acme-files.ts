// Where tls.mode = "acme" keeps its state on the node: the ACME account key and the certificate's private key in
// the secrets directory (0600, like every secret), the certificate chain and the last attempt's outcome in the data
// directory. Files are replaced by rename, so a reader never sees half a file.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CertificatePair, readCertificatePair } from './certificate-pair.ts';

export interface AcmePaths {
  accountKey: string;
  certificateKey: string;
  certificate: string;
  state: string;
}

export function acmePaths(dirs: { secretsDir: string; dataDir: string }): AcmePaths {
  return {
    accountKey: path.join(dirs.secretsDir, 'acme-account.key'),
    certificateKey: path.join(dirs.secretsDir, 'acme-certificate.key'),
    certificate: path.join(dirs.dataDir, 'tls', 'acme-certificate.pem'),
    state: path.join(dirs.dataDir, 'tls', 'acme-state.json'),
  };
}

/** The outcome of the last order or renewal attempt, for `gatehouse status` and `doctor`. */
export interface AcmeState {
  last_attempt_at: string | null;
  last_success_at: string | null;
  /** Why the last attempt failed; null after a success. */
  last_error: string | null;
}

function replaceFile(file: string, content: string, mode: number): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, file);
}

/** The stored certificate and key, or null when there is none yet or it is unusable (a new order replaces it). */
export function readStoredPair(paths: AcmePaths): CertificatePair | null {
  try {
    return readCertificatePair(paths.certificate, paths.certificateKey);
  } catch {
    return null;
  }
}

export function storePair(paths: AcmePaths, pair: { cert: string; key: string }): void {
  // Key first: a crash between the two leaves a mismatched pair, which readStoredPair treats as none.
  replaceFile(paths.certificateKey, pair.key, 0o600);
  replaceFile(paths.certificate, pair.cert, 0o644);
}

export function readAcmeState(paths: AcmePaths): AcmeState {
  try {
    const parsed = JSON.parse(readFileSync(paths.state, 'utf8')) as Partial<AcmeState>;
    return {
      last_attempt_at: parsed.last_attempt_at ?? null,
      last_success_at: parsed.last_success_at ?? null,
      last_error: parsed.last_error ?? null,
    };
  } catch {
    return { last_attempt_at: null, last_success_at: null, last_error: null };
  }
}

export function writeAcmeState(paths: AcmePaths, state: AcmeState): void {
  replaceFile(paths.state, `${JSON.stringify(state, null, 2)}\n`, 0o644);
}
