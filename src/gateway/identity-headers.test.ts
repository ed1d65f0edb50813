import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { BUILT_IN_STRIPPED_HEADERS, strippedHeaderFilter } from './identity-headers.ts';

describe('gateway identity-like request headers', () => {
  const stripped = strippedHeaderFilter(['X-Acme-Tenant', 'X-Acme-Auth-*']);

  test('strips the built-in names and prefixes, with _ read as - and without case', () => {
    for (const name of ['x-user-id', 'x-user', 'X_User_Id', 'remote-user', 'x-remote-group', 'x-auth-request-email'])
      assert.equal(stripped(name), true, name);
    for (const name of ['x-forwarded-preferred-username', 'x-real-ip', 'x-original-url', 'x-rewrite-url'])
      assert.equal(stripped(name), true, name);
  });

  test('strips the X-Auth-*, mod_auth_openidc, Vouch Proxy and Envoy original-path families', () => {
    for (const name of [
      'X-Auth-User',
      'x-auth-email',
      'X_Auth_Token',
      'OIDC_CLAIM_sub',
      'OIDC-Claim-Email',
      'OIDC_access_token',
      'X-Vouch-User',
      'X-Vouch-IdP-Claims-Groups',
      'X-Envoy-Original-Path',
      'x-envoy-original-url',
    ])
      assert.equal(stripped(name), true, name);
    // Prefixes, not substrings: a name that merely contains one is forwarded.
    for (const name of ['x-authority', 'oidcx', 'x-envoy-upstream-service-time', 'x-vouchers'])
      assert.equal(stripped(name), false, name);
  });

  test("strips the operator's names and prefixes, and nothing else", () => {
    for (const name of ['x-acme-tenant', 'x_acme_tenant', 'x-acme-auth-role']) assert.equal(stripped(name), true, name);
    for (const name of ['x-acme-tenant-id', 'x-acme-other', 'authorization', 'accept', 'user-agent', 'x-request-id'])
      assert.equal(stripped(name), false, name);
  });

  test('docs/gateway.md lists every built-in name and prefix', () => {
    const doc = readFileSync(new URL('../../docs/gateway.md', import.meta.url), 'utf8');
    for (const pattern of BUILT_IN_STRIPPED_HEADERS) assert.ok(doc.includes(`\`${pattern}\``), pattern);
  });
});
