// Calling the administration API as a signed-in owner through inject: the CSRF rule wants JSON and our Origin.
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

export interface AdminResponse {
  status: number;
  json: Record<string, unknown>;
  headers: Record<string, unknown>;
}

export function adminCaller(t: Pick<TestApp, 'app'>, defaultCookie: string, origin = 'http://localhost:8080') {
  return async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    cookie = defaultCookie,
  ): Promise<AdminResponse> => {
    const response = await t.app.inject({
      method,
      url,
      headers: {
        ...(cookie ? { cookie } : {}),
        origin,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const json = response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {};
    return { status: response.statusCode, json, headers: response.headers };
  };
}

/** Asserts the whole error envelope, with `fields` when given. */
export function assertAdminEnvelope(
  r: Pick<AdminResponse, 'json' | 'headers'>,
  error: string,
  description: string,
  fields?: unknown,
) {
  assert.deepEqual(r.json, {
    error,
    error_description: description,
    request_id: r.headers['x-request-id'],
    ...(fields === undefined ? {} : { fields }),
  });
}

/** Asserts the status and the whole error envelope, with `fields` when given. */
export function assertAdminError(
  r: AdminResponse,
  status: number,
  error: string,
  description: string,
  fields?: unknown,
) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assertAdminEnvelope(r, error, description, fields);
}

/** The audit records about `subject`, oldest first. */
export async function auditOf(t: Pick<TestApp, 'sql'>, subject: string) {
  const rows = await t.sql<{ event: string; actor: string; details: Record<string, unknown> }[]>`
    select event, actor, details from audit_events where subject = ${subject} order by occurred_at, seq`;
  return [...rows];
}

type AdminCall = ReturnType<typeof adminCaller>;

/** Resources and service clients made through the API, named after an example.test host. */
export function adminFixtures(call: AdminCall) {
  const audienceOf = (name: string) => `https://${name}.example.test/`;
  return {
    audienceOf,
    /** A resource at https://NAME.example.test/ defining `scopes`. */
    async resource(name: string, scopes: string[]) {
      const created = await call('POST', '/admin/resources', { audience: audienceOf(name), name, scopes });
      assert.equal(created.status, 201);
      return created;
    },
    /** A service client of a new production application, provisioned for the resources named. */
    async serviceClient(name: string, resources: string[], scopes: string[]) {
      const app = await call('POST', '/admin/applications', { identifier: name, name, environment: 'production' });
      const created = await call('POST', '/admin/clients', {
        application_id: app.json.id,
        name,
        kind: 'service',
        audiences: resources.map(audienceOf),
        scopes,
      });
      assert.equal(created.status, 201);
      return created;
    },
  };
}

/**
 * Every application, client and resource row and the number of audit records (chained or pending), to show that a
 * refused or empty request changed nothing.
 */
export async function registrySnapshot(t: Pick<TestApp, 'sql'>) {
  const [audit] = await t.sql<{ n: number }[]>`
    select (select count(*) from audit_events)::int + (select count(*) from audit_pending)::int as n`;
  return {
    applications: [...(await t.sql`select * from oauth_applications order by id`)],
    clients: [...(await t.sql`select * from oauth_clients order by id`)],
    resources: [...(await t.sql`select * from oauth_resources order by id`)],
    auditRecords: audit?.n,
  };
}
