import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { policy } from '../../test/gateway/fixtures.ts';
import { makeConfig } from '../../test/helpers/config.ts';
import { gatewayChecks } from './doctor-checks.ts';
import { compileRouteTable, matchRoute } from './route-table.ts';

const config = makeConfig({
  gateway: { enabled: true, route_prefix: '/app', upstream_port: 9000 },
  auth: {
    enabled: true,
    provider_id: 'gatehouse',
    organization_id: 'acme',
    protected_route_prefix: '/app/api',
    route_policies: [
      policy({ path_prefix: '/app/api', methods: ['GET', 'POST'], required_scope: 'read' }),
      policy({ path_prefix: '/app/api/admin/', required_roles: ['admin', 'owner'], role_match: 'all' }),
      policy({ path_prefix: '/app/api', methods: ['GET'], required_scope: 'read' }),
      policy({ path_prefix: '/app/api/me', minimum_assurance: 'aal2' }),
    ],
  },
});

describe('gateway route table', () => {
  const table = compileRouteTable(config);
  const policyOf = (method: string, path: string) => {
    const match = matchRoute(table, method, path);
    return match.kind === 'policy' ? match.policy.index : match.kind;
  };

  test('the longest prefix decides, then the method', () => {
    assert.equal(policyOf('GET', '/app/api/items'), 0);
    assert.equal(policyOf('GET', '/app/api/admin'), 1);
    assert.equal(policyOf('GET', '/app/api/admin/users/7'), 1);
    assert.equal(policyOf('POST', '/app/api/admin/users'), 'no_policy');
    assert.equal(policyOf('GET', '/app/api/me'), 3);
    assert.equal(policyOf('DELETE', '/app/api/items'), 'no_policy');
  });

  test('prefixes match whole segments only', () => {
    assert.equal(policyOf('GET', '/app/api/administrator'), 0);
    assert.equal(policyOf('GET', '/app/apix'), 'unprotected');
    assert.equal(policyOf('GET', '/application'), 'outside');
    assert.equal(policyOf('GET', '/app'), 'unprotected');
  });

  test('a path that matches a prefix only when case is ignored is a case variant, refused whatever the upstream', () => {
    for (const path of ['/app/API/admin', '/app/api/Admin/users', '/app/Api', '/APP/api/items', '/app/api/ME'])
      assert.equal(policyOf('GET', path), 'case_variant', path);
    // Below the longest prefix, case is the upstream's business: no prefix is spelled differently there.
    assert.equal(policyOf('GET', '/app/api/Items/ABC'), 0);
    assert.equal(policyOf('GET', '/app/api/admin/Users'), 1);
    assert.equal(policyOf('GET', '/app/Public'), 'unprotected');
  });

  test('gatehouse doctor prints the compiled table, longest prefix first', () => {
    assert.deepEqual(
      gatewayChecks(config).map((c) => `${c.status} ${c.name} ${c.detail}`),
      [
        'ok gateway /app -> http://127.0.0.1:9000',
        'info gateway /app/api: a method and path with no policy below is refused (403 no_route_policy); roles from organization acme, provider gatehouse',
        'info policy GET /app/api/admin [policy 1]: roles all(admin,owner)',
        'info policy GET /app/api/me [policy 3]: assurance >= aal2',
        'info policy GET,POST /app/api [policy 0]: scope read',
      ],
    );
  });

  test('gatehouse doctor says nothing about a gateway that is off', () => {
    assert.deepEqual(gatewayChecks(makeConfig()), []);
  });
});
