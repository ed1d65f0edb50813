// The exit status and the line a node with no certificate stops with when its first ACME order fails.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AcmeUnreachable, acmeStartFailure } from '../../src/tls/acme-start-failure.ts';

const DIRECTORY = 'https://acme.gatehouse.test/dir';

describe('acmeStartFailure', () => {
  test('an authority reached at none of its addresses is 69 and names each refusal (AggregateError has no message)', () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const both = Object.assign(new AggregateError([refused('::1:14000'), refused('127.0.0.1:14000')]), {
      code: 'ECONNREFUSED',
    });
    const failure = acmeStartFailure(both, 'id.gatehouse.test', DIRECTORY);
    assert.equal(failure.exitCode, 69);
    assert.equal(
      failure.message,
      'no TLS certificate for id.gatehouse.test and the ACME authority is unreachable (connect ECONNREFUSED ::1:14000; connect ECONNREFUSED 127.0.0.1:14000); exiting with 69, systemd tries again',
    );
  });

  test('the directory check failing is 69 too', () => {
    const failure = acmeStartFailure(
      new AcmeUnreachable(`the ACME directory ${DIRECTORY} is unreachable: HTTP 503`),
      'id.gatehouse.test',
      DIRECTORY,
    );
    assert.equal(failure.exitCode, 69);
  });

  test('an answer from the authority (a problem document) is 78: restarting would only spend its limits', () => {
    const failure = acmeStartFailure(
      new Error('Invalid response from http://id.gatehouse.test/.well-known/acme-challenge/x: 404'),
      'id.gatehouse.test',
      DIRECTORY,
    );
    assert.equal(failure.exitCode, 78);
    assert.match(
      failure.message,
      /^no TLS certificate for id\.gatehouse\.test: the order at https:\/\/acme\.gatehouse\.test\/dir failed \(Invalid response .*: 404\); exiting with 78, not retried /,
    );
  });
});
