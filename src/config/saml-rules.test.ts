import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeConfig } from '../../test/helpers/config.ts';
import { samlProblems } from './saml-rules.ts';
import type { Config } from './schema.ts';

const connection = (overrides: Partial<Config['saml'][string]>): Config['saml'][string] => ({
  name: 'Corp',
  idp_metadata_file: '',
  idp_metadata_url: '',
  idp_metadata_refresh_seconds: 3600,
  idp_entity_id: 'https://idp.corp.example/metadata',
  idp_sso_url: 'https://idp.corp.example/sso',
  idp_certificate_files: ['/etc/gatehouse/idp.crt'],
  email_domains: ['corp.example'],
  display_name_attribute: 'displayName',
  email_attribute: 'email',
  sign_up: true,
  mfa_authn_contexts: [],
  ...overrides,
});

describe('[saml.<id>] rules', () => {
  it('accepts https single sign-on URLs, and http only to loopback', () => {
    const config = makeConfig();
    config.saml = {
      a: connection({}),
      b: connection({ idp_sso_url: 'http://127.0.0.1:9000/sso', email_domains: ['b.example'] }),
    };
    assert.deepEqual(samlProblems(config), []);
    config.saml = { a: connection({ idp_sso_url: 'http://idp.corp.example/sso' }) };
    assert.deepEqual(samlProblems(config), [
      { key: 'saml.a.idp_sso_url', problem: 'must be https:// (http:// only for a loopback host)' },
    ]);
  });

  it('gives each email domain one owner across SAML connections and LDAP directories', () => {
    const config = makeConfig();
    config.saml = { a: connection({}), b: connection({ email_domains: ['corp.example', 'b.example'] }) };
    assert.deepEqual(samlProblems(config), [
      { key: 'saml.b.email_domains', problem: 'corp.example already belongs to saml.a' },
    ]);
    config.ldap = {
      dir: { email_domains: ['b.example'] } as Config['ldap'][string],
    };
    config.saml = { b: connection({ email_domains: ['b.example'] }) };
    assert.deepEqual(samlProblems(config), [
      { key: 'saml.b.email_domains', problem: 'b.example already belongs to ldap.dir' },
    ]);
  });

  it('takes the identity provider from idp_metadata_file or from the three idp_ keys, never both or half', () => {
    const config = makeConfig();
    config.saml = {
      a: connection({
        idp_metadata_file: '/etc/gatehouse/idp.xml',
        idp_entity_id: '',
        idp_sso_url: '',
        idp_certificate_files: [],
      }),
    };
    assert.deepEqual(samlProblems(config), []);
    config.saml = { a: connection({ idp_metadata_file: '/etc/gatehouse/idp.xml' }) };
    assert.deepEqual(samlProblems(config), [
      {
        key: 'saml.a.idp_metadata_file',
        problem: 'set it or idp_entity_id, idp_sso_url and idp_certificate_files, not both',
      },
    ]);
    config.saml = { a: connection({ idp_certificate_files: [] }) };
    assert.deepEqual(samlProblems(config), [
      {
        key: 'saml.a',
        problem:
          'needs idp_metadata_file, idp_metadata_url, or all of idp_entity_id, idp_sso_url and idp_certificate_files',
      },
    ]);
  });

  it('takes idp_metadata_url alone, https or http to loopback only', () => {
    const config = makeConfig();
    const byUrl = (url: string, more: Partial<Config['saml'][string]> = {}) =>
      connection({ idp_metadata_url: url, idp_entity_id: '', idp_sso_url: '', idp_certificate_files: [], ...more });
    config.saml = { a: byUrl('https://idp.corp.example/metadata') };
    assert.deepEqual(samlProblems(config), []);
    config.saml = { a: byUrl('http://127.0.0.1:9000/metadata') };
    assert.deepEqual(samlProblems(config), []);
    config.saml = { a: byUrl('http://idp.corp.example/metadata') };
    assert.deepEqual(samlProblems(config), [
      { key: 'saml.a.idp_metadata_url', problem: 'must be https:// (http:// only for a loopback host)' },
    ]);
    config.saml = { a: byUrl('https://idp.corp.example/metadata', { idp_metadata_file: '/etc/gatehouse/idp.xml' }) };
    assert.deepEqual(samlProblems(config), [
      { key: 'saml.a.idp_metadata_url', problem: 'set it or idp_metadata_file, not both' },
    ]);
    config.saml = { a: byUrl('https://idp.corp.example/metadata', { idp_sso_url: 'https://idp.corp.example/sso' }) };
    assert.deepEqual(samlProblems(config), [
      {
        key: 'saml.a.idp_metadata_url',
        problem: 'set it or idp_entity_id, idp_sso_url and idp_certificate_files, not both',
      },
    ]);
  });
});
