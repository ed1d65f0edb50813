import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeConfig } from '../../test/helpers/config.ts';
import { allowedOriginProblem, passkeysUnavailable, relyingParty, rpIdProblem } from './passkeys.ts';
import { checkSemantics } from './validate.ts';

describe('passkeys relying party', () => {
  it('defaults the RP ID to the issuer host and the name to the organization', () => {
    const config = makeConfig({ server: { issuer: 'https://id.acme-robotics.dev' } });
    assert.deepEqual(relyingParty(config), {
      id: 'id.acme-robotics.dev',
      name: 'Acme',
      origins: ['https://id.acme-robotics.dev'],
    });
  });

  it('accepts the host or a registrable parent, and refuses public suffixes, other domains and IP addresses', () => {
    const host = 'id.eu.acme-robotics.co.uk';
    assert.equal(rpIdProblem(host, host), null);
    assert.equal(rpIdProblem('acme-robotics.co.uk', host), null);
    assert.equal(rpIdProblem('co.uk', host), '"co.uk" is a public suffix, not a registrable domain');
    assert.equal(rpIdProblem('uk', host), '"uk" is a public suffix, not a registrable domain');
    assert.equal(
      rpIdProblem('robotics.co.uk', host),
      `"robotics.co.uk" is not the issuer host ${host} or a parent domain of it`,
    );
    assert.equal(rpIdProblem('127.0.0.1', '127.0.0.1'), '127.0.0.1 is an IP address; passkeys need a domain name');
    assert.equal(rpIdProblem('github.io', 'me.github.io'), '"github.io" is a public suffix, not a registrable domain');
  });

  it('accepts extra origins under the RP ID only, over https', () => {
    assert.equal(allowedOriginProblem('https://app.acme-robotics.dev', 'acme-robotics.dev'), null);
    assert.equal(
      allowedOriginProblem('https://evil.dev', 'acme-robotics.dev'),
      '"https://evil.dev" is not under the RP ID acme-robotics.dev',
    );
    assert.equal(
      allowedOriginProblem('http://app.acme-robotics.dev', 'acme-robotics.dev'),
      '"http://app.acme-robotics.dev" must use https (http only for localhost)',
    );
    assert.match(allowedOriginProblem('https://app.acme-robotics.dev/', 'acme-robotics.dev') ?? '', /origin alone/);
  });

  it('refuses a configured RP ID or origin that cannot work, but leaves an IP-address issuer merely without passkeys', () => {
    const bad = makeConfig({
      server: { issuer: 'https://id.acme-robotics.dev' },
      passkeys: { rp_id: 'dev', allowed_origins: [] },
    });
    assert.deepEqual(checkSemantics(bad).problems, [
      { key: 'passkeys.rp_id', problem: '"dev" is a public suffix, not a registrable domain' },
    ]);
    const origins = makeConfig({
      server: { issuer: 'https://id.acme-robotics.dev' },
      passkeys: { rp_id: 'acme-robotics.dev', allowed_origins: ['https://shop.acme-robotics.dev', 'https://evil.dev'] },
    });
    assert.deepEqual(checkSemantics(origins).problems, [
      { key: 'passkeys.allowed_origins[1]', problem: '"https://evil.dev" is not under the RP ID acme-robotics.dev' },
    ]);
    const ip = makeConfig({ server: { issuer: 'http://127.0.0.1:8080' } });
    assert.deepEqual(checkSemantics(ip).problems, []);
    assert.equal(passkeysUnavailable(ip), '127.0.0.1 is an IP address; passkeys need a domain name');
  });
});
