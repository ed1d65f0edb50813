import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeConfig } from '../../test/helpers/config.ts';
import { ConfigError } from './errors.ts';
import { ldapProblems } from './ldap-rules.ts';
import { parseConfig } from './load.ts';
import type { Config } from './schema.ts';

const directory = (overrides: Partial<Config['ldap'][string]>): Config['ldap'][string] => ({
  name: '',
  url: 'ldaps://ldap.corp.example',
  start_tls: false,
  allow_plain_loopback: false,
  ca_file: '',
  bind_dn: 'cn=gatehouse,dc=corp',
  email_domains: ['corp.example'],
  user_search_base: 'dc=corp',
  user_filter: '(mail={subject})',
  id_attribute: 'entryUUID',
  display_name_attribute: 'cn',
  email_attribute: 'mail',
  sign_up: true,
  group_search_base: '',
  group_filter: '(member={dn})',
  group_roles: [],
  timeout_seconds: 5,
  ...overrides,
});
const problems = (ldap: Config['ldap']) => {
  const config = makeConfig();
  config.ldap = ldap;
  return ldapProblems(config);
};

describe('[ldap.<id>] rules', () => {
  it('accepts ldaps://, ldap:// with StartTLS, and plain ldap:// to loopback when allowed by name', () => {
    assert.deepEqual(
      problems({
        a: directory({}),
        b: directory({ url: 'ldap://ldap.corp.example', start_tls: true, email_domains: ['b.example'] }),
        c: directory({ url: 'ldap://127.0.0.1:3389', allow_plain_loopback: true, email_domains: ['c.example'] }),
      }),
      [],
    );
  });

  it('refuses plain LDAP elsewhere, StartTLS over ldaps://, a shared domain and roles without a group search', () => {
    assert.deepEqual(
      problems({
        a: directory({ url: 'ldap://ldap.corp.example' }),
        b: directory({ url: 'ldap://10.0.0.1', allow_plain_loopback: true, email_domains: ['b.example'] }),
        c: directory({ start_tls: true, email_domains: ['corp.example'] }),
        d: directory({ email_domains: ['d.example'], group_roles: [{ group_dn: 'cn=x', roles: ['admin'] }] }),
      }),
      [
        { key: 'ldap.a.url', problem: 'ldap:// sends passwords in the clear: use ldaps://, or set start_tls = true' },
        { key: 'ldap.b.allow_plain_loopback', problem: 'only covers 127.0.0.1, ::1 and localhost' },
        { key: 'ldap.c.start_tls', problem: 'must be false with ldaps:// (TLS is already on)' },
        { key: 'ldap.c.email_domains', problem: 'corp.example already belongs to ldap.a' },
        { key: 'ldap.d.group_roles', problem: 'needs group_search_base (no groups found, no roles)' },
      ],
    );
  });
});

describe('[ldap.<id>] in TOML', () => {
  const toml = (extra: string) => `
[ldap.corp]
url = "ldaps://ldap.corp.example"
ca_file = "corp-ca.pem"
bind_dn = "cn=gatehouse,dc=corp"
email_domains = ["corp.example"]
user_search_base = "ou=people,dc=corp"
${extra}
`;
  const parse = (text: string) =>
    parseConfig(text, '/etc/gatehouse/gatehouse.toml', { baseDir: '/etc/gatehouse', development: false, env: {} });

  it('loads a directory with the documented defaults and the CA path resolved against the config file', () => {
    const { config } = parse(toml(''));
    assert.deepEqual(
      { ...config.ldap.corp },
      directory({
        ca_file: '/etc/gatehouse/corp-ca.pem',
        bind_dn: 'cn=gatehouse,dc=corp',
        user_search_base: 'ou=people,dc=corp',
        user_filter: '(&(objectClass=inetOrgPerson)(mail={subject}))',
        group_filter: '(&(objectClass=groupOfNames)(member={dn}))',
      }),
    );
  });

  it('refuses an inline password and a filter without {subject}', () => {
    assert.throws(
      () => parse(toml('bind_password = "secret"\nuser_filter = "(uid=alice)"')),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((p) => p.key).sort(), ['ldap.corp.bind_password', 'ldap.corp.user_filter']);
        return true;
      },
    );
  });
});
