// An operation whose body is optional (docs/api.md "Request bodies"): a DELETE of the console or "sign out my other
// sessions" may be sent with nothing at all, as HTTP clients send a DELETE by default, and is not refused for the
// media type of a body it did not carry. Anything actually sent still has to be JSON, and the origin rule still
// decides whether a cookie-bearing request is ours.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { makeAdmin, makeApplication, makeSession } from '../helpers/oauth-fixtures.ts';

const ORIGIN = 'http://localhost:8080';

describe('operations whose body is optional take a request that sends nothing', async () => {
  // The account routes need self-service, which needs delivery configured; nothing is sent here.
  const config = makeConfig({
    self_service: { enabled: true },
    delivery: {
      kind: 'smtp',
      from: 'id@acme-robotics.dev',
      smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
  });
  const t = await startTestApp({ config });
  const send = async (options: InjectOptions) => {
    const r = await t.app.inject(options);
    return {
      status: r.statusCode,
      json: r.body ? (r.json() as Record<string, unknown>) : null,
      id: r.headers['x-request-id'],
    };
  };
  const assertEnvelope = (r: Awaited<ReturnType<typeof send>>, status: number, error: string, description: string) => {
    assert.equal(r.status, status, JSON.stringify(r.json));
    assert.deepEqual(r.json, { error, error_description: description, request_id: r.id });
  };
  const exists = async (id: string) => (await t.sql`select 1 from oauth_applications where id = ${id}`).length === 1;

  test('DELETE /admin/applications/{id} with no body and no Content-Type deletes (204)', async () => {
    const { cookie } = await makeAdmin(t);
    const application = await makeApplication(t.sql);
    const r = await send({
      method: 'DELETE',
      url: `/admin/applications/${application.id}`,
      headers: { cookie, origin: ORIGIN },
    });
    assert.equal(r.status, 204, JSON.stringify(r.json));
    assert.equal(await exists(application.id), false);
  });

  test('POST /account/sessions/revoke-others with nothing sent ends the other sessions', async () => {
    const { sub, cookie } = await makeAdmin(t);
    await makeSession(t, sub);
    const r = await send({
      method: 'POST',
      url: '/account/sessions/revoke-others',
      headers: { cookie, origin: ORIGIN },
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json, { revoked: 1 });
    const [live] =
      await t.sql`select count(*)::int as n from sessions where identity_id = ${sub} and revoked_at is null`;
    assert.equal(live?.n, 1);
  });

  test('a body of another type, a body without a type, or a type without a body is still 415, and nothing changes', async () => {
    const { cookie } = await makeAdmin(t);
    const application = await makeApplication(t.sql);
    const url = `/admin/applications/${application.id}`;
    for (const [headers, payload] of [
      [{ 'content-type': 'text/plain' }, 'x'],
      [{ 'content-type': 'text/plain' }, undefined],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, ''],
      [{ 'transfer-encoding': 'chunked' }, '{}'],
    ] as const) {
      const r = await send({
        method: 'DELETE',
        url,
        headers: { cookie, origin: ORIGIN, ...headers },
        ...(payload === undefined ? {} : { payload }),
      });
      assertEnvelope(r, 415, 'unsupported_media_type', 'The request body has an unsupported content type.');
    }
    assert.equal(await exists(application.id), true);
  });

  test('sending nothing does not skip the origin rule: cross-site or without Origin is 403 csrf_rejected', async () => {
    const { cookie } = await makeAdmin(t);
    const application = await makeApplication(t.sql);
    const url = `/admin/applications/${application.id}`;
    assertEnvelope(
      await send({ method: 'DELETE', url, headers: { cookie, origin: 'https://evil.test' } }),
      403,
      'csrf_rejected',
      'The request came from another origin',
    );
    assertEnvelope(
      await send({ method: 'DELETE', url, headers: { cookie } }),
      403,
      'csrf_rejected',
      'The request must carry a same-origin Origin header',
    );
    assert.equal(await exists(application.id), true);
  });

  test('an operation that needs a body still answers 415 when nothing is sent', async () => {
    const { cookie } = await makeAdmin(t);
    assertEnvelope(
      await send({ method: 'POST', url: '/admin/applications', headers: { cookie, origin: ORIGIN } }),
      415,
      'unsupported_media_type',
      'The request body has an unsupported content type.',
    );
  });
});
