// GET /admin/applications, /admin/clients and /admin/resources page like GET /admin/identities: `limit` (1-100,
// default 25), an opaque `cursor`, `next_cursor` null on the last page, and a closed query string.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeField } from '../../src/http/validation-messages.ts';
import { adminCaller, assertAdminError } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('GET /admin/applications, /admin/clients, /admin/resources: keyset paging', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);

  const app = await call('POST', '/admin/applications', { identifier: 'app-0', name: 'App 0', environment: 'staging' });
  const created = { applications: [String(app.json.id)], clients: [] as string[], resources: [] as string[] };
  // 27 of each, in three batches of nine at three instants: rows of one instant are ordered by id alone.
  for (let batch = 0; batch < 3; batch++) {
    for (let i = 0; i < 9; i++) {
      const n = `${batch}-${i}`;
      if (created.applications.length < 27) {
        const a = await call('POST', '/admin/applications', {
          identifier: `app-${n}`,
          name: n,
          environment: 'staging',
        });
        created.applications.push(String(a.json.id));
      }
      const c = await call('POST', '/admin/clients', {
        application_id: app.json.id,
        name: n,
        kind: 'browser',
        redirect_uris: [`https://app.example.test/${n}`],
        scopes: ['openid'],
      });
      created.clients.push(String(c.json.client_id));
      const r = await call('POST', '/admin/resources', {
        audience: `https://${n}.example.test/`,
        name: n,
        scopes: ['x'],
      });
      created.resources.push(String(r.json.id));
    }
    t.clock.advance(1);
  }
  /** Newest first, ties in descending id order: the order every page must follow. */
  const inOrder = async (table: string) =>
    (await t.sql`select id from ${t.sql(table)} order by date_trunc('milliseconds', created_at) desc, id desc`).map(
      (r) => r.id,
    );

  const lists = [
    { path: '/admin/applications', key: 'applications', id: 'id', table: 'oauth_applications' },
    { path: '/admin/clients', key: 'clients', id: 'client_id', table: 'oauth_clients' },
    { path: '/admin/resources', key: 'resources', id: 'id', table: 'oauth_resources' },
  ] as const;

  for (const { path, key, id, table } of lists) {
    const idsOf = (r: { json: Record<string, unknown> }) =>
      (r.json[key] as Record<string, string>[]).map((x) => String(x[id]));

    test(`GET ${path} answers the newest 25 by default with a next_cursor, then the rest with next_cursor null`, async () => {
      assert.equal(created[key].length, 27);
      const first = await call('GET', path);
      assert.equal(first.status, 200);
      assert.deepEqual(Object.keys(first.json).sort(), [key, 'next_cursor'].sort());
      assert.equal(idsOf(first).length, 25);
      assert.equal(typeof first.json.next_cursor, 'string');
      const rest = await call('GET', `${path}?cursor=${first.json.next_cursor}`);
      assert.equal(rest.status, 200);
      assert.equal(rest.json.next_cursor, null);
      assert.deepEqual([...idsOf(first), ...idsOf(rest)], await inOrder(table));
    });

    test(`GET ${path} pages with limit, newest first, without repeats or gaps while rows are added`, async () => {
      const before = await inOrder(table);
      const seen: string[] = [];
      let url = `${path}?limit=4`;
      for (let page = 0; ; page++) {
        const r = await call('GET', url);
        assert.equal(r.status, 200);
        assert.ok(idsOf(r).length <= 4);
        seen.push(...idsOf(r));
        // A row added meanwhile is newer than the cursor, so it leads the first page, not a later one: the pages
        // still show every earlier row once, in order.
        if (page === 1) {
          t.clock.advance(1);
          if (key === 'resources')
            await call('POST', '/admin/resources', {
              audience: 'https://late.example.test/',
              name: 'l',
              scopes: ['x'],
            });
          else if (key === 'applications')
            await call('POST', '/admin/applications', { identifier: 'late', name: 'l', environment: 'staging' });
          else
            await call('POST', '/admin/clients', {
              application_id: app.json.id,
              name: 'late',
              kind: 'browser',
              redirect_uris: ['https://app.example.test/late'],
              scopes: ['openid'],
            });
        }
        if (!r.json.next_cursor) break;
        url = `${path}?limit=4&cursor=${r.json.next_cursor}`;
      }
      assert.deepEqual(seen, before);
      const after = await inOrder(table);
      assert.equal(after.length, before.length + 1);
      assert.deepEqual(after.slice(1), before, 'the new row is the newest');
    });

    for (const [query, field, problem] of [
      ['limit=0', 'querystring.limit', 'Enter a whole number from 1 to 100.'],
      ['limit=101', 'querystring.limit', 'Enter a whole number from 1 to 100.'],
      ['cursor=bm9wZQ', 'querystring.cursor', 'Is not a cursor this API returned.'],
      ['colour=red', 'querystring.colour', 'This request does not accept this field; remove it.'],
    ] as const)
      test(`GET ${path}?${query} answers 400 invalid_request naming ${field}`, async () => {
        const r = await call('GET', `${path}?${query}`);
        assertAdminError(r, 400, 'invalid_request', describeField({ path: field, problem }), [
          { path: field, problem },
        ]);
      });
  }
});
