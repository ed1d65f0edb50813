// How HTTPS is terminated, from the configuration: for `files` the certificate is read (subject, expiry, whether it
// covers the issuer's host and matches the key); for `acme` the authority and domain. Nothing leaves the host.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { issuerListenerMismatch } from '../config/issuer-listener.ts';
import { isReservedHostname } from '../config/placeholders.ts';
import type { Config } from '../config/schema.ts';
import { type Check, check } from '../delivery/check.ts';
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
  /** mode acme: where certificates come from and for which name. */
  acme?: { directory_url: string; domain: string; contact_email: string };
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
  const daysLeft = Math.floor((cert.validToDate.getTime() - now.getTime()) / DAY_MS);
  const subject = cert.subject.replaceAll('\n', ', ');
  const certificate: CertificateInfo = {
    subject,
    issuer: cert.issuer.replaceAll('\n', ', '),
    not_before: cert.validFromDate.toISOString(),
    not_after: cert.validToDate.toISOString(),
    days_left: daysLeft,
  };
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

export function tlsStatus(config: Config, now: Date): TlsSection {
  const issuer = new URL(config.server.issuer);
  const { mode } = config.tls;
  if (mode === 'files') return filesSection(config, issuer.hostname, now);
  if (mode === 'acme') {
    const acme = {
      directory_url: config.tls.acme_directory_url,
      domain: issuer.hostname,
      contact_email: config.tls.acme_email,
    };
    const line = isReservedHostname(acme.domain)
      ? check('warn', 'tls', `acme: ${acme.domain} is a reserved name; a public authority will not issue for it`)
      : check('info', 'tls', `acme: certificates for ${acme.domain} from ${acme.directory_url}`);
    return { ...sectionOf([line]), mode, acme };
  }
  const line =
    issuer.protocol === 'https:'
      ? check('info', 'tls', `external: a reverse proxy terminates TLS for ${issuer.origin}`)
      : check('info', 'tls', `external: plain HTTP at ${issuer.origin} (local development)`);
  // Nothing of ours sits between a loopback issuer and the listener in this mode: they must be the same address.
  const mismatch = issuerListenerMismatch(config.server.issuer, config.server.listen);
  return { ...sectionOf(mismatch ? [line, check('warn', 'issuer', mismatch)] : [line]), mode };
}
