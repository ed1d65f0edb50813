// End to end through the gateway (issue 19): a product whose page and API both sit behind the gateway on the
// identity origin. In Chromium the page signs the person in with the BUILT @gatehouse/browser and `resource=<the
// API>`, calls the API with the access token through the gateway, and shows what the API saw; routes whose policy
// the person does not meet are refused. A service client does the same with a client-credentials token over HTTP.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type * as Sdk from '../../sdk/browser/dist/index.js';
import type { Sub } from '../../src/identity/ids.ts';
import { startTestApp } from '../helpers/app.ts';
import { newPage } from '../helpers/browser.ts';
import { makeConfig } from '../helpers/config.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { freePort } from '../helpers/oauth-server.ts';
import { bundle } from '../sdk/bundle.ts';
import { databaseWithOrganization, policy } from './fixtures.ts';

declare const window: { sdk: typeof Sdk; settings: Sdk.GatehouseConfig };
declare const location: { href: string };

/** What the product API answers: who the gateway said is calling. */
interface ApiAnswer {
  path: string;
  subject: string | null;
  client: string | null;
  roles: string | null;
  scope: string | null;
}

/**
 * The product upstream: its page (the SDK test's page script, which puts the SDK and the settings on window) for
 * /app/ and /app/callback, and an API under /app/p/api that answers with the identity headers it received.
 */
async function startProduct(settings: () => unknown): Promise<number> {
  const script = await bundle(new URL('../sdk/browser-app/main.ts', import.meta.url).pathname, false);
  const page = () =>
    '<!doctype html><html><head><meta charset="utf-8"><title>Orders</title><link rel="icon" href="data:,"></head><body>' +
    `<script type="application/json" id="config">${JSON.stringify(settings()).replace(/</g, '\\u003c')}</script>` +
    '<script type="module" src="/app/app.js"></script></body></html>';
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://upstream').pathname;
    if (path.startsWith('/app/p/api/')) {
      const header = (name: string) => (request.headers[name] as string | undefined) ?? null;
      const answer: ApiAnswer = {
        path,
        subject: header('x-gatehouse-subject'),
        client: header('x-gatehouse-client'),
        roles: header('x-gatehouse-roles'),
        scope: header('x-gatehouse-scope'),
      };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
      return;
    }
    const isScript = path === '/app/app.js';
    // The product's own policy: without one the gateway answers with the service's deny-all (docs/gateway.md).
    response.writeHead(200, {
      'content-type': isScript ? 'text/javascript' : 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'self'; img-src data:",
    });
    response.end(isScript ? script : page());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

describe('gateway end to end: a browser app and a service client calling a product API', async () => {
  const db = await databaseWithOrganization();
  const orders = await makeResource(db.sql, 'https://orders.acme.test/', ['orders:read']);
  let clientId = '';
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const productPort = await startProduct(() => ({
    issuer,
    clientId,
    redirectUri: `${issuer}/app/callback`,
    scope: 'openid orders:read',
    resource: orders.audience,
  }));
  const config = makeConfig({
    server: { issuer },
    gateway: { enabled: true, route_prefix: '/app', upstream_port: productPort },
    auth: {
      enabled: true,
      provider_id: 'gatehouse',
      organization_id: 'acme',
      protected_route_prefix: '/app/p',
      route_policies: [
        policy({ path_prefix: '/app/p/api', required_scope: 'orders:read', required_audience: orders.audience }),
        policy({ path_prefix: '/app/p/api/admin', required_roles: ['admin'], required_audience: orders.audience }),
      ],
    },
  });
  const t = await startTestApp({ config, sql: db.sql, listen: true, port });
  const { client } = await makeClient(db.sql, t.secrets.clientSecret, {
    kind: 'browser',
    redirectUris: [`${issuer}/app/callback`],
    scopes: ['openid', 'orders:read'],
    audiences: [orders.audience],
  });
  clientId = client.id;

  /** Opens the product page through the gateway with the person signed in to Gatehouse, and runs the SDK's sign-in. */
  async function signIn(sub: Sub): Promise<{ page: Page; problems: string[]; accessToken: string }> {
    const { page, problems } = await newPage();
    const { cookie } = await makeSession(t, sub);
    const [name, value] = cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: issuer }]);
    await page.goto(`${issuer}/app/`);
    await page.waitForFunction(() => window.sdk !== undefined);
    await page.evaluate(() => {
      void window.sdk.login(window.settings);
    });
    await page.waitForURL(`${issuer}/app/callback?**`);
    await page.waitForFunction(() => window.sdk !== undefined);
    const tokens = await page.evaluate(() => window.sdk.handleCallback(window.settings, location.href));
    return { page, problems, accessToken: tokens.accessToken };
  }

  /** fetch() from the page, as the product's own script calls its API. */
  const callApi = (page: Page, path: string, accessToken: string) =>
    page.evaluate(
      async ([path, accessToken]) => {
        const response = await fetch(path, { headers: { authorization: `Bearer ${accessToken}` } });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      },
      [path, accessToken] as const,
    );

  test('the signed-in person reaches the API as themselves, and a route needing a role they lack is refused', async () => {
    const sub = await makeIdentity(db.sql, { displayName: 'Grace Hopper' });
    await db.sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${sub}, ${['buyer']})`;
    const { page, problems, accessToken } = await signIn(sub);
    const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] as string, 'base64url').toString());
    assert.equal(payload.aud, orders.audience);

    const allowed = await callApi(page, '/app/p/api/orders', accessToken);
    assert.equal(allowed.status, 200);
    assert.deepEqual(allowed.body, {
      path: '/app/p/api/orders',
      subject: sub,
      client: client.id,
      roles: 'buyer',
      scope: payload.scope,
    });
    assert.ok(String(allowed.body.scope).split(' ').includes('orders:read'));

    const refused = await callApi(page, '/app/p/api/admin/refunds', accessToken);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'insufficient_role');

    const anonymous = await page.evaluate(async () => (await fetch('/app/p/api/orders')).status);
    assert.equal(anonymous, 401);
    // Chromium logs each 4xx fetch; nothing else may have gone wrong on the page.
    assert.deepEqual(
      problems.filter((p) => !/status of 40[13]/.test(p)),
      [],
    );
  });

  test('an admin of the organization reaches the admin route from the same page', async () => {
    const sub = await makeIdentity(db.sql, { displayName: 'Ada Lovelace' });
    await db.sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${sub}, ${['admin']})`;
    const { page, accessToken } = await signIn(sub);
    const allowed = await callApi(page, '/app/p/api/admin/refunds', accessToken);
    assert.equal(allowed.status, 200);
    assert.equal(allowed.body.subject, sub);
    assert.equal(allowed.body.roles, 'admin');
  });

  test("a service client's client-credentials token reaches the API, never a role-protected route", async () => {
    const { client: service, secret } = await makeClient(db.sql, t.secrets.clientSecret, {
      kind: 'service',
      scopes: ['orders:read'],
      audiences: [orders.audience],
    });
    const tokenResponse = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: service.id,
        client_secret: secret as string,
        scope: 'orders:read',
        resource: orders.audience,
      }),
    });
    assert.equal(tokenResponse.status, 200);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const call = async (path: string) => {
      const response = await fetch(`${issuer}${path}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const allowed = await call('/app/p/api/orders');
    assert.equal(allowed.status, 200);
    assert.deepEqual(allowed.body, {
      path: '/app/p/api/orders',
      subject: service.id,
      client: service.id,
      roles: '',
      scope: 'orders:read',
    });
    const refused = await call('/app/p/api/admin/refunds');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'insufficient_role');
  });
});
