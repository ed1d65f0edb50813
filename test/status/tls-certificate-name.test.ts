// `gatehouse status --full` and `doctor` describe the served certificate by its subject. An ACME authority may issue
// one with an empty subject and its names only in the subject alternative name extension (Node's `subject` is then
// null): the report names it by those names instead of failing on it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { tlsStatus } from '../../src/status/tls.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';

const dir = scratchDir();

/** A self-signed P-256 certificate from openssl with `subject` ("/" is the empty one) and the given DNS names. */
function certificate(name: string, subject: string, names: string[]): { cert_file: string; key_file: string } {
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  const san = names.length > 0 ? ['-addext', `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`] : [];
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '60'],
      ...['-subj', subject, ...san, '-keyout', keyFile, '-out', certFile],
    ],
    { stdio: 'ignore' },
  );
  return { cert_file: certFile, key_file: keyFile };
}

const report = (files: { cert_file: string; key_file: string }) =>
  tlsStatus(
    makeConfig({ server: { issuer: 'https://id.gatehouse.test' }, tls: { mode: 'files', ...files } }),
    new Date(),
  );

describe('the TLS report names the certificate', () => {
  test('by its subject when it has one', () => {
    const section = report(certificate('named', '/CN=id.gatehouse.test', ['id.gatehouse.test']));
    assert.equal(section.certificate?.subject, 'CN=id.gatehouse.test');
    assert.match(
      section.checks[0]?.detail ?? '',
      /^files: CN=id\.gatehouse\.test, expires \d{4}-\d\d-\d\d \(5\d days left\)$/,
    );
  });

  test('by its subject alternative names when its subject is empty, as some ACME certificates are', () => {
    const section = report(certificate('san-only', '/', ['id.gatehouse.test', 'alt.gatehouse.test']));
    assert.equal(section.certificate?.subject, 'certificate for id.gatehouse.test, alt.gatehouse.test');
    assert.equal(section.certificate?.issuer, '(an issuer with no name)');
    assert.deepEqual(
      section.checks.map((c) => c.status),
      ['ok'],
      JSON.stringify(section.checks),
    );
    assert.match(
      section.checks[0]?.detail ?? '',
      /^files: certificate for id\.gatehouse\.test, alt\.gatehouse\.test, expires /,
    );
  });
});
