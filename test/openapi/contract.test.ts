// The published contract (api/openapi.json, SPEC.md "Versioning"): generated from the routes' schemas, committed,
// served at /openapi.json with the issuer as server URL, and true of real answers on success and error paths.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { renderApiReference } from '../../scripts/api-reference.ts';
import {
  CONTRACT_FILE,
  CONTRACT_ISSUER,
  contractConfig,
  contractText,
  generateContract,
} from '../../scripts/openapi-contract.ts';
import { errorCatalogue, isErrorCode } from '../../src/http/error-catalogue.ts';
import { adminCaller } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { answersChecked, type ContractChecker, contractChecker, contractProblems } from '../helpers/contract.ts';
import { makeAdmin, makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { postForm, userTokens } from '../helpers/oauth-flow.ts';

type Json = Record<string, unknown>;
type Operation = { requestBody?: Json; security?: Json[]; responses: Record<string, Json> };

const committed = () => readFileSync(CONTRACT_FILE, 'utf8');
const operations = (document: Json) =>
  Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({ path, method, operation })),
  );
/** The `error` codes of a response's JSON envelope, if it has one. */
const envelopeCodes = (response: Json): string[] | undefined => {
  const schema = (response.content as Record<string, { schema: Json }> | undefined)?.['application/json']?.schema;
  return (schema?.properties as { error?: { enum?: string[] } } | undefined)?.error?.enum;
};

describe('api/openapi.json', () => {
  test('is what the routes generate now (run `npm run openapi` after changing a route)', async () => {
    assert.equal(contractText(await generateContract()), committed());
  });

  test('docs/api-reference.md is its rendering, one row per operation', () => {
    const document = JSON.parse(committed()) as Json;
    const reference = readFileSync(new URL('../../docs/api-reference.md', import.meta.url), 'utf8');
    assert.equal(reference, renderApiReference(document as never), 'run `npm run openapi`');
    const rows = reference.split('\n').filter((line) => line.startsWith('| `'));
    assert.equal(rows.length, operations(document).length);
    assert.ok(rows.some((row) => row.startsWith('| `POST /oauth/token` |') && row.includes('invalid_grant')));
  });

  test('is OpenAPI 3.1 with every route family, its security schemes and the error envelope', () => {
    const document = JSON.parse(committed()) as Json & { components: Json & { securitySchemes: Json } };
    assert.match(String(document.openapi), /^3\.1\./);
    const paths = Object.keys(document.paths as Json);
    for (const path of ['/oauth/token', '/oauth/authorize', '/auth/login', '/account/profile', '/admin/clients'])
      assert.ok(paths.includes(path), path);
    for (const path of ['/health/ready', '/.well-known/openid-configuration', '/metrics', '/openapi.json'])
      assert.ok(paths.includes(path), path);
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), [
      'accessToken',
      'clientAuthentication',
      'dpopAccessToken',
      'metricsToken',
      'session',
    ]);
    assert.deepEqual((document.paths as Record<string, Record<string, Operation>>)['/oauth/userinfo']?.get?.security, [
      { accessToken: [] },
      { dpopAccessToken: [] },
    ]);
  });

  test('every operation has an answer, a body schema where it takes one, and catalogued codes per status', () => {
    const document = JSON.parse(committed()) as Json;
    // RFC 9449 §7.1: at a protected resource, DPoP proof errors are 401 rather than the catalogue's 400; RFC 8628 §3.5:
    // at the token endpoint a denied device authorization is access_denied with RFC 6749 §5.2's 400, not the 403 of
    // the authorization endpoint's page.
    const moved = new Set(['401 invalid_dpop_proof', '401 use_dpop_nonce', '400 access_denied']);
    const shared = (document.components as { responses: Record<string, Json> }).responses;
    for (const { path, method, operation } of operations(document)) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.ok(
        Object.keys(operation.responses).some((status) => Number(status) < 400),
        `${where}: no success`,
      );
      for (const status of ['500', '503']) assert.ok(operation.responses[status], `${where}: no ${status}`);
      // POST /oauth/userinfo reads only the Authorization header (OIDC Core §5.3.1).
      if (['post', 'put', 'patch', 'delete'].includes(method) && where !== 'POST /oauth/userinfo')
        assert.ok(operation.requestBody, `${where}: no request body`);
      for (const [status, found] of Object.entries(operation.responses)) {
        const response = found.$ref ? shared[String(found.$ref).split('/').at(-1) as string] : found;
        assert.ok(response, `${where} ${status}: ${found.$ref} is not defined`);
        for (const code of envelopeCodes(response) ?? []) {
          assert.ok(isErrorCode(code), `${where} ${status}: ${code} is not catalogued`);
          const expected = errorCatalogue[code].status;
          assert.ok(String(expected) === status || moved.has(`${status} ${code}`), `${where}: ${code} at ${status}`);
        }
      }
    }
  });
});

describe('GET /openapi.json', async () => {
  const issuer = 'http://localhost:8080';
  const t = await startTestApp({ config: contractConfig(issuer) });

  test("serves the committed document with this instance's issuer as its server URL", async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    const served = response.json() as Json;
    assert.deepEqual(served.servers, [{ url: issuer }]);
    assert.deepEqual(served, JSON.parse(committed().replaceAll(CONTRACT_ISSUER, issuer)));
  });

  test('holds no secret of the instance', async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body;
    for (const [name, value] of Object.entries(t.secrets)) {
      const forms = Buffer.isBuffer(value)
        ? [value.toString('base64url'), value.toString('base64'), value.toString('hex')]
        : [value.split('\n')[1] ?? value];
      for (const form of forms) assert.ok(!text.includes(form), name);
    }
  });
});

describe('real answers against the document', async () => {
  const t = await startTestApp();
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));
  const admin = adminCaller(t, (await makeAdmin(t)).cookie);

  test('a representative set of routes answers, on success and error paths, as the document says', async () => {
    const before = answersChecked();
    const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
    const statuses: number[] = [];
    for (const url of ['/health/live', '/health/ready', '/.well-known/openid-configuration', '/.well-known/jwks.json'])
      statuses.push((await get(url)).statusCode);
    statuses.push((await get('/auth/providers')).statusCode);

    const tokens = await userTokens(t, { client, secret, cookie });
    const form = { client_id: client.id, client_secret: secret as string };
    statuses.push((await postForm(t, '/oauth/token', { ...form, grant_type: 'authorization_code', code: 'x' })).status);
    statuses.push((await postForm(t, '/oauth/token', { ...form, grant_type: 'password' })).status);
    statuses.push(
      (
        await postForm(t, '/oauth/token', {
          client_id: client.id,
          client_secret: 'wrong',
          grant_type: 'refresh_token',
          refresh_token: 'x',
        })
      ).status,
    );
    statuses.push((await get('/oauth/userinfo', { authorization: `Bearer ${tokens.access_token}` })).statusCode);
    statuses.push((await get('/oauth/userinfo', { authorization: 'Bearer not-a-token' })).statusCode);
    statuses.push((await postForm(t, '/oauth/introspect', { ...form, token: tokens.access_token })).status);
    statuses.push((await postForm(t, '/oauth/introspect', { ...form, token: 'unknown' })).status);
    statuses.push((await postForm(t, '/oauth/revoke', { ...form, token: tokens.refresh_token })).status);
    statuses.push((await get('/oauth/authorize?client_id=nobody')).statusCode);

    statuses.push((await get('/account/profile', { cookie })).statusCode);
    statuses.push((await get('/account/profile')).statusCode);
    statuses.push(
      (await admin('POST', '/admin/applications', { identifier: 'shop', name: 'Shop', environment: 'production' }))
        .status,
    );
    statuses.push(
      (await admin('POST', '/admin/applications', { identifier: 'shop', name: 'Shop', environment: 'production' }))
        .status,
    );
    statuses.push((await admin('POST', '/admin/applications', { identifier: 'Not Valid', name: '' })).status);
    statuses.push((await admin('GET', '/admin/applications')).status);
    statuses.push((await admin('GET', '/admin/applications/app_unknown')).status);
    statuses.push((await admin('GET', '/admin/applications', undefined, '')).status);
    statuses.push((await get('/metrics')).statusCode);
    statuses.push(
      (await get('/metrics', { authorization: `Bearer ${t.secrets.metrics.toString('base64url')}` })).statusCode,
    );
    const unsupported = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'text/plain', origin: 'http://localhost:8080' },
      payload: 'hello',
    });
    statuses.push(unsupported.statusCode);

    assert.deepEqual(statuses, [
      ...[200, 200, 200, 200, 200],
      ...[400, 400, 401, 200, 401, 200, 200, 200, 400],
      // Account self-service is off in the base configuration: 403 self_service_disabled, signed in or not.
      ...[403, 403, 201, 409, 400, 200, 404, 401, 401, 200, 415],
    ]);
    assert.ok(answersChecked() - before >= statuses.length, 'every answer above was checked');
    assert.deepEqual(contractProblems(), []);
  });

  test('the check refuses what the document does not describe', () => {
    const checker: ContractChecker = contractChecker();
    const live = { method: 'GET', route: '/health/live', contentType: 'application/json; charset=utf-8' };
    assert.equal(checker.problem({ ...live, status: 200, body: '{"status":"ok"}' }), null);
    assert.match(String(checker.problem({ ...live, status: 200, body: '{"status":"down"}' })), /constant/);
    assert.match(String(checker.problem({ ...live, status: 200, body: '{"status":"ok","extra":1}' })), /additional/);
    assert.match(String(checker.problem({ ...live, status: 418, body: '{}' })), /status not in the contract/);
    assert.match(
      String(checker.problem({ ...live, status: 200, contentType: 'text/plain', body: 'ok' })),
      /content type/,
    );
    const envelope = { error: 'invalid_grant', error_description: 'x', request_id: 'r' };
    const token = { method: 'POST', route: '/oauth/token', status: 400, contentType: 'application/json' };
    assert.equal(checker.problem({ ...token, body: JSON.stringify(envelope) }), null);
    assert.match(
      String(checker.problem({ ...token, body: JSON.stringify({ ...envelope, error: 'email_taken' }) })),
      /allowed value/,
    );
    // A shared answer (components.responses) is checked as strictly.
    const fault = { ...live, status: 500, body: JSON.stringify({ ...envelope, error: 'server_error' }) };
    assert.equal(checker.problem(fault), null);
    assert.match(String(checker.problem({ ...fault, body: JSON.stringify(envelope) })), /allowed value/);
  });
});
