// Every operation of the served /openapi.json, on an app with every optional part configured, sent every kind of
// body (none, JSON good and bad, forms good and bad, other and broken media types), with plausible and garbage path
// parameters, by an anonymous script, an anonymous same-origin page and a signed-in owner: no answer is a 5xx, every
// JSON refusal is the one envelope with its X-Request-Id, a body of a type the operation does not take is 415, and a
// cookie-less call of a session operation is 401. The gateway's routes get the same bodies for the first two checks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { errorCatalogue, isErrorCode } from '../../src/http/error-catalogue.ts';
import { startFullApp } from '../helpers/full-app.ts';
import { makeAdmin, makeApplication, makeClient, makeIdentity, makeResource } from '../helpers/oauth-fixtures.ts';
import { type SocketRequest, send } from '../helpers/over-socket.ts';
import { bodyVariants, type Variant } from './body-variants.ts';

type Json = Record<string, unknown>;
interface Operation {
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
  security?: Json[];
}

const ORIGIN = 'http://localhost:8080';
// RFC 9449 §7.1: at a protected resource, DPoP proof errors are 401 rather than the catalogue's 400.
const MOVED = new Set(['401 invalid_dpop_proof', '401 use_dpop_nonce']);
// Path parameter values no route can take: NUL, a broken escape, too long for the router, traversal, markup.
const GARBAGE = ['%00', '%E0%A4%A', 'x'.repeat(600), '..%2F..%2Fadmin', '%22%3Cscript%3E', '%F0%9F%98%80'];

describe('every operation of /openapi.json with every content type', async () => {
  const { t, samlId } = await startFullApp();
  const application = await makeApplication(t.sql);
  const { client } = await makeClient(t.sql, t.secrets.clientSecret);
  const resource = await makeResource(t.sql, 'https://api.acme.test/', ['read']);
  const person = await makeIdentity(t.sql);
  const assetName = /\/assets\/([^"]+\.css)/.exec((await t.app.inject({ url: '/signin' })).body)?.[1] ?? 'x.css';
  const document = (await t.app.inject({ url: '/openapi.json' })).json() as Json;
  const schemas = (document.components as { schemas?: Record<string, Json> }).schemas ?? {};

  /** A value of a parameter that names something that exists, where the test made one. */
  const plausible = (path: string, name: string): string => {
    if (name === 'sub') return person;
    if (name === 'client_id') return client.id;
    if (name === 'name') return assetName;
    if (name === 'path') return 'applications';
    if (path.startsWith('/admin/applications/')) return application.id;
    if (path.startsWith('/admin/clients/')) return client.id;
    if (path.startsWith('/admin/resources/')) return resource.id;
    if (path.startsWith('/admin/organizations/')) return 'acme';
    if (path.includes('saml')) return samlId;
    return 'x1';
  };
  const fill = (path: string, value: (name: string) => string) =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));

  interface Sent {
    /** `METHOD /path/{template}` as the document names the operation. */
    operation: string;
    /** Whether the operation is behind the session cookie alone. */
    sessionOnly: boolean;
    /** False for the gateway's routes, which keep their own body rule. */
    inContract: boolean;
    caller: string;
    where: string;
    variant: Variant;
    /** Whether the path names something that exists; a garbage path is refused by the router first. */
    plausiblePath: boolean;
    options: InjectOptions;
  }
  const requests: Sent[] = [];
  const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
    ([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({ path, method, operation, inContract: true })),
  );
  // The gateway's routes are not in the document (their paths come from configuration) and pass any body on to the
  // upstream, so they are swept for the 5xx and envelope checks only: a path under a policy and one outside it.
  const gateway = ['/app/p/api/items', '/app/public/echo'].flatMap((path) =>
    ['get', 'post', 'put', 'patch', 'delete'].map((method) => ({
      path,
      method,
      operation: {} as Operation,
      inContract: false,
    })),
  );
  // Each operation gets an owner of its own, so an operation that signs out or revokes sessions spoils no other.
  for (const { path, method, operation, inContract } of [...operations, ...gateway]) {
    const { cookie } = await makeAdmin(t);
    const callers: Record<string, Record<string, string>> = {
      script: {},
      page: { origin: ORIGIN, 'sec-fetch-site': 'same-origin', accept: 'text/html' },
      owner: { origin: ORIGIN, 'sec-fetch-site': 'same-origin', cookie },
    };
    const urls = path.includes('{')
      ? [fill(path, (name) => plausible(path, name)), ...GARBAGE.map((g) => fill(path, () => g))]
      : [path];
    for (const [index, url] of urls.entries()) {
      const variants = bodyVariants(
        operation.requestBody?.content ?? {},
        schemas,
        t.config.server.body_limit_bytes,
        operation.requestBody?.required === false,
      );
      // Garbage paths get fewer bodies: what they test is the path, not the parsers.
      const chosen = index === 0 ? variants : variants.filter((v) => ['none', 'json', 'text'].includes(v.name));
      for (const variant of chosen)
        for (const [caller, headers] of Object.entries(callers))
          requests.push({
            operation: `${method.toUpperCase()} ${path}`,
            sessionOnly: operation.security?.length === 1 && 'session' in (operation.security[0] as Json),
            inContract,
            caller,
            where: `${method.toUpperCase()} ${url.slice(0, 80)} [${variant.name}, ${caller}]`,
            variant,
            plausiblePath: index === 0,
            options: {
              method: method.toUpperCase() as InjectOptions['method'],
              url,
              headers: { ...headers, ...variant.headers },
              ...(variant.payload === undefined ? {} : { payload: variant.payload }),
            },
          });
    }
  }

  // The gateway answers on the socket, ahead of Fastify's router that inject() calls (src/gateway/front.ts).
  const answers = await inBatches(requests, 8, async (sent) => ({
    sent,
    response: sent.inContract ? await t.app.inject(sent.options) : await send(t, sent.options as SocketRequest),
  }));

  test('the sweep reached every operation, the owner signed in', () => {
    assert.ok(operations.length > 100, `${operations.length} operations`);
    const swept = new Set(requests.filter((sent) => sent.inContract).map((sent) => sent.operation));
    assert.equal(swept.size, operations.length);
    const echoed = answers.find(({ sent }) => sent.where === 'POST /app/public/echo [text, script]');
    assert.equal(echoed?.response.statusCode, 200, 'the gateway forwarded to the echo upstream');
    const status = answers.find(({ sent }) => sent.where === 'GET /admin/status [none, owner]');
    assert.equal(status?.response.statusCode, 200, status?.response.body);
  });

  test('a cookie-less script calling an operation behind the session gets 401 login_required, not csrf_rejected or a validation error', () => {
    const failures: string[] = [];
    for (const { sent, response } of answers) {
      if (!sent.sessionOnly || sent.caller !== 'script' || !sent.plausiblePath) continue;
      if (
        !['json', 'form', 'none'].includes(sent.variant.name) ||
        sent.variant.unsupportedBy(sent.options.method as string)
      )
        continue;
      // Signed out, a browser navigation is sent to sign in instead.
      if (response.statusCode === 302 && String(response.headers.location).startsWith('/signin')) continue;
      if (response.statusCode !== 401 || envelopeCodeOf(response) !== 'login_required')
        failures.push(`${sent.where}: ${response.statusCode} ${response.body.slice(0, 120)}`);
    }
    assert.deepEqual(failures, []);
  });

  // The review's one 5xx: the browser flows' error handlers took every refusal that was not ours for a server fault.
  test('POST /auth/federated/callback with text/plain or an oversized form shows a 415 or 413 page and sets no cookie', async () => {
    for (const [status, code, type, payload, text] of [
      [
        415,
        'unsupported_media_type',
        'text/plain',
        'state=x&code=y',
        'Send the parameters as application/x-www-form-urlencoded',
      ],
      [
        413,
        'payload_too_large',
        'application/x-www-form-urlencoded',
        `state=${'x'.repeat(70_000)}`,
        'The request body is too large.',
      ],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/auth/federated/callback',
        headers: { 'content-type': type, accept: 'text/html' },
        payload,
      });
      assert.equal(response.statusCode, status, response.body);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.ok(response.body.includes(`<p>${text}</p>`), response.body);
      assert.ok(response.body.includes(`Error: <code>${code}</code>`));
      assert.ok(response.body.includes(`Request ID: <code>${response.headers['x-request-id']}</code>`));
      assert.equal(response.headers['set-cookie'], undefined);
    }
  });

  test('POST /auth/saml/{id}/acs from a browser with text/plain shows a 415 page; a script gets the envelope', async () => {
    const post = (accept: string) =>
      t.app.inject({
        method: 'POST',
        url: `/auth/saml/${samlId}/acs`,
        headers: { 'content-type': 'text/plain', accept },
        payload: 'SAMLResponse=x',
      });
    const page = await post('text/html');
    assert.equal(page.statusCode, 415);
    assert.ok(page.body.includes('Error: <code>unsupported_media_type</code>'), page.body);
    const script = await post('application/json');
    assert.equal(script.statusCode, 415);
    assert.deepEqual(script.json(), {
      error: 'unsupported_media_type',
      error_description: 'Send the parameters as application/x-www-form-urlencoded',
      request_id: script.headers['x-request-id'],
    });
  });

  test('no answer is a 5xx', () => {
    const failures = answers
      .filter(({ response }) => response.statusCode >= 500)
      .map(({ sent, response }) => `${sent.where}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    assert.deepEqual(failures, []);
  });

  test('every answer carries X-Request-Id, and every JSON refusal is the catalogued envelope', () => {
    const failures: string[] = [];
    for (const { sent, response } of answers) {
      const problem = envelopeProblem(response);
      if (problem) failures.push(`${sent.where}: ${problem}`);
    }
    assert.deepEqual(failures, []);
  });

  test('a body of a media type the operation does not take is refused with 415 unsupported_media_type', () => {
    const failures: string[] = [];
    for (const { sent, response } of answers) {
      if (!sent.inContract || !sent.plausiblePath || !sent.variant.unsupportedBy(sent.options.method as string))
        continue;
      if (response.statusCode !== 415) failures.push(`${sent.where}: ${response.statusCode}`);
      else if (envelopeCodeOf(response) !== 'unsupported_media_type') failures.push(`${sent.where}: ${response.body}`);
    }
    assert.deepEqual(failures, []);
  });
});

/** The envelope's code, or the code an HTML refusal page shows. */
function envelopeCodeOf(response: LightMyRequestResponse): string | undefined {
  if (String(response.headers['content-type']).startsWith('text/html'))
    return /Error: <code>([a-z_]+)<\/code>/.exec(response.body)?.[1];
  return (response.json() as Json).error as string | undefined;
}

/** What is wrong with a response's request id or error envelope, or null. */
function envelopeProblem(response: LightMyRequestResponse): string | null {
  const requestId = response.headers['x-request-id'];
  if (typeof requestId !== 'string' || !/^[A-Za-z0-9_-]{16}$/.test(requestId)) return 'no X-Request-Id';
  if (response.statusCode < 400) return null;
  const type = String(response.headers['content-type'] ?? '');
  // Pages of the browser flows (sign-in, federated and SAML returns) answer a refusal with an HTML page.
  if (type.startsWith('text/html')) return null;
  if (!type.startsWith('application/json')) return `a ${response.statusCode} of type ${type}`;
  const body = response.json() as Json;
  const keys = Object.keys(body).filter((key) => key !== 'fields');
  if (keys.sort().join() !== 'error,error_description,request_id') return `not the envelope: ${response.body}`;
  if (body.request_id !== requestId) return 'request_id differs from X-Request-Id';
  if (typeof body.error_description !== 'string' || body.error_description === '') return 'no error_description';
  if (typeof body.error !== 'string' || !isErrorCode(body.error)) return `uncatalogued code ${String(body.error)}`;
  const status = errorCatalogue[body.error].status;
  if (status !== response.statusCode && !MOVED.has(`${response.statusCode} ${body.error}`))
    return `${body.error} at ${response.statusCode}, catalogued at ${status}`;
  return null;
}

/** Runs `work` over `items` with at most `limit` in flight, keeping the order. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}
