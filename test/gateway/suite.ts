// The gateway suites' common set-up: a real upstream, the app in front of it with a set of route policies, a
// registered API with a service client, a web client for people's tokens, and request helpers that prove a refused
// request never reached the upstream.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config/schema.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { clientCredentialsToken, userTokens } from '../helpers/oauth-flow.ts';
import { send } from '../helpers/over-socket.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { databaseWithOrganization, gatewayConfig, policy, startGateway } from './fixtures.ts';

export const ISSUER = 'http://localhost:8080';

export const json = (r: LightMyRequestResponse) => JSON.parse(r.body) as Record<string, unknown>;

export function assertRefusal(r: LightMyRequestResponse, status: number, error: string, description: string) {
  assert.equal(r.statusCode, status, r.body);
  assert.deepEqual(json(r), { error, error_description: description, request_id: r.headers['x-request-id'] });
  assert.equal(r.headers['cache-control'], 'no-store');
}

export async function startGatewaySuite(gateway: Partial<Config['gateway']> = {}) {
  const upstream = await startUpstream();
  const { sql } = await databaseWithOrganization();
  // Created before the app so the policy can name its audience.
  const resource = await makeResource(sql, 'https://api.acme.test/', ['read', 'write']);
  const config = gatewayConfig(
    upstream.port,
    [
      policy({
        path_prefix: '/app/p/api',
        methods: ['GET', 'POST'],
        required_scope: 'read',
        required_audience: resource.audience,
      }),
      policy({ path_prefix: '/app/p/api/admin', required_roles: ['admin'] }),
      policy({
        path_prefix: '/app/p/reports',
        required_roles: ['analyst', 'admin'],
        role_match: 'all',
        required_audience: ISSUER,
      }),
      policy({ path_prefix: '/app/p/verified', minimum_assurance: 'ial2' }),
      policy({ path_prefix: '/app/p/mfa', minimum_assurance: 'aal2' }),
      policy({ path_prefix: '/app/p/profile', required_scope: 'profile' }),
    ],
    gateway,
  );
  const t = await startGateway(config, sql, undefined, true);
  const { client: svc, secret: svcSecret } = await makeClient(sql, t.secrets.clientSecret, {
    kind: 'service',
    audiences: [resource.audience],
    scopes: ['read', 'write'],
  });
  const service = { client: svc, secret: svcSecret as string, resource };
  const serviceToken = async (scope = 'read') => {
    const r = await clientCredentialsToken(t, service, scope);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return r.json.access_token as string;
  };
  const { client: web, secret: webSecret } = await makeClient(sql, t.secrets.clientSecret);
  const person = async (o: { roles?: string[]; assurance?: 'ial1' | 'ial2'; aal?: 'aal1' | 'aal2' } = {}) => {
    const sub = await makeIdentity(sql, { assurance: o.assurance ?? 'ial1' });
    if (o.roles)
      await sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${sub}, ${o.roles})`;
    const { cookie } = await makeSession(t, sub, { aal: o.aal ?? 'aal2' });
    const tokens = await userTokens(t, { client: web, secret: webSecret, cookie });
    return { sub, tokens };
  };
  const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
    send(t, {
      method: 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
  /**
   * GET with the path sent byte for byte over a real socket: inject() parses URLs with WHATWG URL, which resolves
   * `%2e%2e` and `..` itself, so path tricks must bypass it to reach the gateway as an attacker would send them.
   */
  const rawGet = (path: string, token: string) =>
    new Promise<LightMyRequestResponse>((resolve, reject) => {
      const request = http.request(`${t.url}/`, { path, headers: { authorization: `Bearer ${token}` } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ statusCode: response.statusCode, headers: response.headers, body } as LightMyRequestResponse),
        );
      });
      request.on('error', reject);
      request.end();
    });
  /** Asserts the request was refused before the upstream: nothing new in its log. */
  const notForwarded = async (send: () => Promise<LightMyRequestResponse>) => {
    const before = upstream.received.length;
    const r = await send();
    assert.equal(upstream.received.length, before, 'the upstream received the refused request');
    return r;
  };

  return {
    upstream,
    sql,
    resource,
    config,
    t,
    svc,
    service,
    web,
    webSecret: webSecret as string,
    serviceToken,
    person,
    get,
    rawGet,
    notForwarded,
  };
}
