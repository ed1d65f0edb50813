import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeConfig } from '../../../test/helpers/config.ts';
import { providerSecretsDir } from '../../../test/helpers/provider-secrets.ts';
import { makeKeyPair } from '../../../test/helpers/saml-idp.ts';
import type { Config } from '../../config/schema.ts';
import { samlConnectionChecks } from './doctor-checks.ts';

const sp = makeKeyPair('gatehouse-sp');
const idp = makeKeyPair('idp', 400);
const other = makeKeyPair('other');

const configWith = (files: Record<string, string>) => {
  const config = makeConfig({ secrets: { dir: providerSecretsDir(files) } });
  const connection: Config['saml'][string] = {
    name: 'Corp',
    idp_metadata_file: '',
    idp_metadata_url: '',
    idp_metadata_refresh_seconds: 3600,
    idp_entity_id: 'https://idp.corp.example/metadata',
    idp_sso_url: 'https://idp.corp.example/sso',
    idp_certificate_files: [idp.certFile],
    email_domains: ['corp.example'],
    display_name_attribute: 'displayName',
    email_attribute: 'email',
    sign_up: true,
    mfa_authn_contexts: [],
  };
  config.saml = { corp: connection };
  return config;
};

describe('gatehouse doctor: [saml.<id>] lines', () => {
  it('says ok with the days left on the soonest certificate, warns within 30 days, fails once one expired', () => {
    const longLived = makeKeyPair('gatehouse-sp-long', 400);
    const now = new Date();
    const [ok] = samlConnectionChecks(
      configWith({ 'saml-corp.key': longLived.key, 'saml-corp.crt': longLived.cert }),
      now,
    );
    assert.equal(ok?.status, 'ok');
    assert.match(ok?.detail ?? '', /^keys load; certificates valid for at least 39\d more days$/);
    // sp was made for 2 days.
    const config = configWith({ 'saml-corp.key': sp.key, 'saml-corp.crt': sp.cert });
    const [soon] = samlConnectionChecks(config, now);
    assert.equal(soon?.status, 'warn');
    assert.match(soon?.detail ?? '', /^service provider certificate saml-corp\.crt expires in [01] days$/);
    const [expired] = samlConnectionChecks(config, new Date(now.getTime() + 5 * 86_400_000));
    assert.equal(expired?.status, 'fail');
    assert.match(expired?.detail ?? '', /^service provider certificate saml-corp\.crt expired \d days ago$/);
  });

  it('fails when the service provider key and certificate are not one pair, or a file is missing', () => {
    const mismatched = samlConnectionChecks(
      configWith({ 'saml-corp.key': sp.key, 'saml-corp.crt': other.cert }),
      new Date(),
    );
    assert.deepEqual(mismatched[0], {
      status: 'fail',
      name: 'saml.corp',
      detail: 'saml-corp.key and saml-corp.crt in secrets.dir are not one key pair',
    });
    const missing = samlConnectionChecks(configWith({ 'saml-corp.crt': sp.cert }), new Date());
    assert.equal(missing[0]?.status, 'fail');
    assert.match(missing[0]?.detail ?? '', /needs its service provider private key in saml-corp\.key/);
  });
});
