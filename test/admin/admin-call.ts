// Calls to the admin API as a browser would make them (session cookie, same-origin JSON), and the envelope check
// every refusal gets.
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

export interface Answer {
  status: number;
  json: Record<string, unknown>;
  headers: Record<string, unknown>;
}

export function adminCaller(t: TestApp, defaultCookie: string) {
  return async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
    cookie = defaultCookie,
  ): Promise<Answer> => {
    const response = await t.app.inject({
      method,
      url,
      headers: {
        ...(cookie ? { cookie } : {}),
        origin: 'http://localhost:8080',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const json = response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {};
    return { status: response.statusCode, json, headers: response.headers };
  };
}

export function assertEnvelope(r: Answer, status: number, error: string, description: string, fields?: unknown) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.deepEqual(r.json, {
    error,
    error_description: description,
    request_id: r.headers['x-request-id'],
    ...(fields === undefined ? {} : { fields }),
  });
}

/** The audit records about `subject`, oldest first. */
export async function auditOf(t: TestApp, subject: string) {
  const rows = await t.sql<{ event: string; actor: string; details: Record<string, unknown> }[]>`
    select event, actor, details from audit_events where subject = ${subject} order by occurred_at, seq`;
  return [...rows];
}
