import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeField } from '../../src/http/validation-messages.ts';
import { adminCaller, assertAdminError, auditOf } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

const t = await startTestApp();
const admin = await makeAdmin(t);
const call = adminCaller(t, admin.cookie);
await t.sql`insert into organizations (id, name) values ('labs', 'Acme Labs')`;
const rolesOf = async (org: string, sub: string) => {
  const [row] = await t.sql`select roles from memberships where organization_id = ${org} and identity_id = ${sub}`;
  return (row?.roles as string[] | undefined) ?? null;
};

describe('GET /admin/organizations', () => {
  test('lists the organizations and marks the bootstrap one', async () => {
    const r = await call('GET', '/admin/organizations');
    assert.deepEqual(r.json, {
      organizations: [
        { id: 'acme', name: 'Acme', bootstrap: true },
        { id: 'labs', name: 'Acme Labs', bootstrap: false },
      ],
    });
  });
});

describe('GET /admin/organizations/:id/members', () => {
  test('lists members with their roles in the order they joined, paged', async () => {
    const ada = await makeIdentity(t.sql, { displayName: 'Ada', email: 'ada@acme.test' });
    t.clock.advance(1);
    assert.equal((await call('PUT', `/admin/organizations/acme/members/${ada}`, { roles: ['member'] })).status, 200);
    const first = await call('GET', '/admin/organizations/acme/members?limit=1');
    assert.equal(first.status, 200);
    assert.deepEqual(first.json.organization, { id: 'acme', name: 'Acme' });
    assert.deepEqual(
      (first.json.members as { sub: string; roles: string[] }[]).map((m) => [m.sub, m.roles]),
      [[admin.sub, ['owner']]],
    );
    const second = await call('GET', `/admin/organizations/acme/members?limit=1&cursor=${first.json.next_cursor}`);
    const [member] = second.json.members as Record<string, unknown>[];
    assert.deepEqual(member, {
      sub: ada,
      display_name: 'Ada',
      email: 'ada@acme.test',
      state: 'active',
      ial: 'ial1',
      roles: ['member'],
      joined_at: t.clock.now().toISOString(),
    });
  });

  test('answers 404 not_found for an unknown organization', async () => {
    assertAdminError(await call('GET', '/admin/organizations/nope/members'), 404, 'not_found', 'No such organization');
  });

  test('answers 401 without a session and 403 for a member', async () => {
    assertAdminError(
      await call('GET', '/admin/organizations/acme/members', undefined, ''),
      401,
      'login_required',
      'Sign in first.',
    );
    const member = await makeIdentity(t.sql);
    await t.sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${member}, ${['admin']})`;
    assertAdminError(
      await call(
        'PUT',
        `/admin/organizations/acme/members/${member}`,
        { roles: ['owner'] },
        (await makeSession(t, member)).cookie,
      ),
      403,
      'admin_required',
      'Only an owner of the organization may do this',
    );
    assert.deepEqual(await rolesOf('acme', member), ['admin'], 'nothing changed');
  });
});

describe('PUT /admin/organizations/:id/members/:sub', () => {
  test('adds a member, then replaces their roles with operator-defined ones, auditing both', async () => {
    const person = await makeIdentity(t.sql);
    const added = await call('PUT', `/admin/organizations/labs/members/${person}`, { roles: ['member'] });
    assert.deepEqual(added.json, { organization_id: 'labs', sub: person, roles: ['member'] });
    const changed = await call('PUT', `/admin/organizations/labs/members/${person}`, {
      roles: ['admin', 'billing:approver'],
    });
    assert.equal(changed.status, 200);
    assert.deepEqual(await rolesOf('labs', person), ['admin', 'billing:approver']);
    assert.deepEqual(await auditOf(t, person), [
      {
        event: 'membership.added',
        actor: admin.sub,
        details: { organization_id: 'labs', roles: 'member', previous_roles: '' },
      },
      {
        event: 'membership.roles_changed',
        actor: admin.sub,
        details: { organization_id: 'labs', roles: 'admin billing:approver', previous_roles: 'member' },
      },
    ]);
  });

  const cases: [string, unknown, string, string][] = [
    ['no roles', { roles: [] }, 'body.roles', 'Add at least 1 entry.'],
    [
      'a malformed role',
      { roles: ['Team Lead'] },
      'body.roles.0',
      'Use lowercase letters, digits and . _ : -, starting with a letter or digit.',
    ],
    [
      'a repeated role',
      { roles: ['member', 'member'] },
      'body.roles',
      'Remove the repeated entry (entries 1 and 2 are the same).',
    ],
    [
      'too many roles',
      { roles: Array.from({ length: 21 }, (_, i) => `r${i}`) },
      'body.roles',
      'Use at most 20 entries.',
    ],
    [
      'an unknown field',
      { roles: ['member'], note: 'x' },
      'body.note',
      'This request does not accept this field; remove it.',
    ],
  ];
  for (const [name, body, path, problem] of cases)
    test(`refuses ${name} with 400 invalid_request naming ${path} and changes nothing`, async () => {
      const person = await makeIdentity(t.sql);
      const r = await call('PUT', `/admin/organizations/acme/members/${person}`, body);
      assertAdminError(r, 400, 'invalid_request', describeField({ path, problem }), [{ path, problem }]);
      assert.equal(await rolesOf('acme', person), null);
    });

  test('answers 404 not_found for an unknown identity or organization', async () => {
    assertAdminError(
      await call('PUT', '/admin/organizations/acme/members/usr_nobody', { roles: ['member'] }),
      404,
      'not_found',
      'No such identity',
    );
    assertAdminError(
      await call('PUT', `/admin/organizations/nope/members/${admin.sub}`, { roles: ['member'] }),
      404,
      'not_found',
      'No such organization',
    );
  });

  test('refuses taking the owner role from the last active ial2 owner with 409 last_owner', async () => {
    const r = await call('PUT', `/admin/organizations/acme/members/${admin.sub}`, { roles: ['admin'] });
    assertAdminError(
      r,
      409,
      'last_owner',
      'The organization must keep at least one active IAL2 owner; make someone else an owner first.',
    );
    assert.deepEqual(await rolesOf('acme', admin.sub), ['owner']);
  });
});

describe('DELETE /admin/organizations/:id/members/:sub', () => {
  test('removes a member and audits it; a second removal is 404', async () => {
    const person = await makeIdentity(t.sql);
    await call('PUT', `/admin/organizations/acme/members/${person}`, { roles: ['member', 'support'] });
    const removed = await call('DELETE', `/admin/organizations/acme/members/${person}`, {});
    assert.equal(removed.status, 204);
    assert.equal(await rolesOf('acme', person), null);
    assert.deepEqual((await auditOf(t, person)).at(-1), {
      event: 'membership.removed',
      actor: admin.sub,
      details: { organization_id: 'acme', roles: 'member support' },
    });
    assertAdminError(
      await call('DELETE', `/admin/organizations/acme/members/${person}`, {}),
      404,
      'not_found',
      'No such member',
    );
  });

  test('refuses removing the last owner of the bootstrap organization with 409 last_owner, but not of another', async () => {
    assertAdminError(
      await call('DELETE', `/admin/organizations/acme/members/${admin.sub}`, {}),
      409,
      'last_owner',
      'The organization must keep at least one active IAL2 owner; make someone else an owner first.',
    );
    await call('PUT', `/admin/organizations/labs/members/${admin.sub}`, { roles: ['owner'] });
    assert.equal((await call('DELETE', `/admin/organizations/labs/members/${admin.sub}`, {})).status, 204);
  });

  test('lets an owner step down once another active ial2 owner exists', async () => {
    const next = await makeIdentity(t.sql, { assurance: 'ial2' });
    await call('PUT', `/admin/organizations/acme/members/${next}`, { roles: ['owner'] });
    const nextCookie = (await makeSession(t, next)).cookie;
    assert.equal((await call('DELETE', `/admin/organizations/acme/members/${admin.sub}`, {}, nextCookie)).status, 204);
    assertAdminError(
      await call('DELETE', `/admin/organizations/acme/members/${next}`, {}, nextCookie),
      409,
      'last_owner',
      'The organization must keep at least one active IAL2 owner; make someone else an owner first.',
    );
  });
});
