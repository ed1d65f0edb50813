// Where tls.mode = "acme" keeps its state on the node: all of it under data.dir/tls, the one place besides the logs
// that the installed unit lets the service write (packaging/gatehouse.service: ProtectSystem=strict,
// ReadWritePaths=/var/lib/gatehouse /var/log/gatehouse; secrets.dir, /etc/gatehouse/secrets, is read-only to it).
// The account key and the certificate's private key are 0600 in a 0700 directory; the chain and the last attempt's
// outcome beside them. Files are replaced by rename, so a reader never sees half a file.
//
// Releases before 1.1 kept both keys in secrets.dir. Where they are still there and not yet here, they are read from
// there: the account (and its rate limits) carries on, and the next order writes its key here.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CertificatePair, readCertificatePair } from './certificate-pair.ts';

export interface AcmePaths {
  accountKey: string;
  certificateKey: string;
  certificate: string;
  state: string;
  /** Where releases before 1.1 kept the two keys (secrets.dir): read when the new file is missing, never written. */
  legacy: { accountKey: string; certificateKey: string };
}

export function acmePaths(dirs: { secretsDir: string; dataDir: string }): AcmePaths {
  const tls = path.join(dirs.dataDir, 'tls');
  return {
    accountKey: path.join(tls, 'acme-account.key'),
    certificateKey: path.join(tls, 'acme-certificate.key'),
    certificate: path.join(tls, 'acme-certificate.pem'),
    state: path.join(tls, 'acme-state.json'),
    legacy: {
      accountKey: path.join(dirs.secretsDir, 'acme-account.key'),
      certificateKey: path.join(dirs.secretsDir, 'acme-certificate.key'),
    },
  };
}

/** The file's bytes, or null when it does not exist. */
export function readIfPresent(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
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
  for (const key of [paths.certificateKey, paths.legacy.certificateKey])
    try {
      return readCertificatePair(paths.certificate, key);
    } catch {
      // Missing, unreadable or not this certificate's key: try the earlier location, then order anew.
    }
  return null;
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
