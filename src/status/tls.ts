// How HTTPS is terminated, from the configuration: for `files` the certificate is read (subject, expiry, whether it
// covers the issuer's host and matches the key); for `acme` the certificate the service obtained (issuer, expiry)
// and the outcome of its last order or renewal. Nothing leaves the host.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { issuerListenerMismatch } from '../config/issuer-listener.ts';
import { isReservedHostname } from '../config/placeholders.ts';
import type { Config } from '../config/schema.ts';
import { type Check, check } from '../delivery/check.ts';
import { acmePaths, readAcmeState } from '../tls/acme-files.ts';
import { type Section, sectionOf } from './section.ts';

/** Renewal should have happened well before this many days are left. */
const EXPIRY_WARNING_DAYS = 14;
const DAY_MS = 86_400_000;

export interface CertificateInfo {
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  days_left: number;
}

export interface TlsSection extends Section {
  mode: Config['tls']['mode'];
  /** mode files: the certificate read from tls.cert_file, or null when it could not be read. */
  certificate?: CertificateInfo | null;
  /** mode acme: where certificates come from, for which name, and how the last order or renewal went. */
  acme?: {
    directory_url: string;
    domain: string;
    contact_email: string;
    last_attempt_at: string | null;
    last_success_at: string | null;
    last_error: string | null;
  };
}

/**
 * What a certificate is called in a report: its subject, else (an ACME certificate may carry its names only in the
 * subject alternative name extension, with an empty subject, for which Node's `subject` is null) its names.
 */
export function certificateName(cert: X509Certificate): string {
  if (cert.subject) return cert.subject.replaceAll('\n', ', ');
  const names = (cert.subjectAltName ?? '')
    .split(', ')
    .map((name) => name.replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
  return names.length > 0 ? `certificate for ${names.join(', ')}` : 'certificate with no subject and no names';
}

function certificateInfo(cert: X509Certificate, now: Date): CertificateInfo {
  return {
    subject: certificateName(cert),
    issuer: cert.issuer ? cert.issuer.replaceAll('\n', ', ') : '(an issuer with no name)',
    not_before: cert.validFromDate.toISOString(),
    not_after: cert.validToDate.toISOString(),
    days_left: Math.floor((cert.validToDate.getTime() - now.getTime()) / DAY_MS),
  };
}

/** A file-system error code (ENOENT, EACCES), or null when the file was read but its content is wrong. */
const readError = (error: unknown) => {
  const e = error as NodeJS.ErrnoException;
  return e.syscall && e.code ? e.code : null;
};

function filesSection(config: Config, host: string, now: Date): TlsSection {
  const { cert_file: certFile, key_file: keyFile } = config.tls;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(certFile));
  } catch (error) {
    const code = readError(error);
    const detail = code ? `cannot read ${certFile} (${code})` : `${certFile} does not hold a PEM certificate`;
    return { ...sectionOf([check('fail', 'tls', `files: ${detail}`)]), mode: 'files', certificate: null };
  }
  const certificate = certificateInfo(cert, now);
  const { subject, days_left: daysLeft } = certificate;
  const expiry = `expires ${certificate.not_after.slice(0, 10)}`;
  const checks: Check[] = [];
  if (cert.validToDate <= now)
    checks.push(check('fail', 'tls', `files: ${subject} expired on ${certificate.not_after}`));
  else if (cert.validFromDate > now)
    checks.push(check('fail', 'tls', `files: ${subject} is not valid before ${certificate.not_before}`));
  else if (daysLeft < EXPIRY_WARNING_DAYS)
    checks.push(check('warn', 'tls', `files: ${subject} ${expiry}, in ${daysLeft} days: renew it`));
  else checks.push(check('ok', 'tls', `files: ${subject}, ${expiry} (${daysLeft} days left)`));
  if (!cert.checkHost(host)) checks.push(check('warn', 'tls', `the certificate does not cover ${host}`));
  try {
    if (!cert.checkPrivateKey(createPrivateKey(readFileSync(keyFile))))
      checks.push(check('fail', 'tls key', `${keyFile} is not the certificate's key`));
  } catch (error) {
    const code = readError(error);
    checks.push(check('fail', 'tls key', code ? `cannot read ${keyFile} (${code})` : `${keyFile} is not a PEM key`));
  }
  return { ...sectionOf(checks), mode: 'files', certificate };
}

function acmeSection(config: Config, domain: string, now: Date): TlsSection {
  const paths = acmePaths({ secretsDir: config.secrets.dir, dataDir: config.data.dir });
  const state = readAcmeState(paths);
  const acme = {
    directory_url: config.tls.acme_directory_url,
    domain,
    contact_email: config.tls.acme_email,
    ...state,
  };
  if (isReservedHostname(domain) && config.tls.acme_ca_file === '') {
    const line = check(
      'fail',
      'tls',
      `acme: ${domain} is a reserved name; no certificate is ordered for it from a public authority: use tls.mode files or external`,
    );
    return { ...sectionOf([line]), mode: 'acme', acme, certificate: null };
  }
  let cert: X509Certificate | null = null;
  try {
    cert = new X509Certificate(readFileSync(paths.certificate));
  } catch {
    // no certificate obtained yet (or an unreadable one): reported below
  }
  const failure = state.last_error ? `; the last attempt (${state.last_attempt_at}) failed: ${state.last_error}` : '';
  if (!cert) {
    const line = state.last_error
      ? check('fail', 'tls', `acme: no certificate for ${domain} from ${acme.directory_url}${failure}`)
      : check(
          'warn',
          'tls',
          `acme: no certificate for ${domain} yet; the service orders one from ${acme.directory_url} when it starts`,
        );
    return { ...sectionOf([line]), mode: 'acme', acme, certificate: null };
  }
  const certificate = certificateInfo(cert, now);
  const described = `${certificate.subject} issued by ${certificate.issuer}, expires ${certificate.not_after.slice(0, 10)} (${certificate.days_left} days left)`;
  const checks: Check[] = [];
  if (cert.validToDate <= now) checks.push(check('fail', 'tls', `acme: ${described}: expired${failure}`));
  else if (state.last_error) checks.push(check('warn', 'tls', `acme: ${described}; renewal is failing${failure}`));
  else if (certificate.days_left < EXPIRY_WARNING_DAYS)
    checks.push(check('warn', 'tls', `acme: ${described}; renewal is overdue: is the service running?`));
  else checks.push(check('ok', 'tls', `acme: ${described}; renewed ${config.tls.acme_renew_days} days before expiry`));
  return { ...sectionOf(checks), mode: 'acme', acme, certificate };
}

export function tlsStatus(config: Config, now: Date): TlsSection {
  const issuer = new URL(config.server.issuer);
  const { mode } = config.tls;
  if (mode === 'files') return filesSection(config, issuer.hostname, now);
  if (mode === 'acme') return acmeSection(config, issuer.hostname, now);
  const line =
    issuer.protocol === 'https:'
      ? check('info', 'tls', `external: a reverse proxy terminates TLS for ${issuer.origin}`)
      : check('info', 'tls', `external: plain HTTP at ${issuer.origin} (local development)`);
  // Nothing of ours sits between a loopback issuer and the listener in this mode: they must be the same address.
  const mismatch = issuerListenerMismatch(config.server.issuer, config.server.listen);
  return { ...sectionOf(mismatch ? [line, check('warn', 'issuer', mismatch)] : [line]), mode };
}
