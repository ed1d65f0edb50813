// GET /account/connections and POST /account/connections/:id/remove: removing a method succeeds while another
// remains, goes through the identity module's rule (audited), and never touches another person's methods.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { attachSignInMethod } from '../../src/identity/sign-in-methods.ts';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const context = { actor: null, clientIp: '192.0.2.1', requestId: 'req-fixture' };

const list = async (cookie: string) =>
  (
    (await t.app.inject({ method: 'GET', url: '/account/connections', headers: { cookie } })).json() as {
      connections: { id: string; kind: string; provider: string }[];
    }
  ).connections;
const remove = (id: string, cookie: string, payload: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/account/connections/${id}/remove`,
    headers: { ...JSON_HEADERS, cookie },
    payload,
  });

const attachGithub = (identityId: Parameters<typeof attachSignInMethod>[3]['identityId'], subject: string) =>
  attachSignInMethod(t.sql, t.deps.audit, context, {
    identityId,
    kind: 'federated',
    provider: 'github',
    externalSubject: subject,
    label: 'GitHub',
  });

describe('POST /account/connections/:id/remove', () => {
  test('removes a method with 204 while another remains, and audits method.removed', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'two-methods@acme-robotics.dev' });
    const github = await attachSignInMethod(t.sql, t.deps.audit, context, {
      identityId: person.sub,
      kind: 'federated',
      provider: 'github',
      externalSubject: '90210',
      label: 'GitHub',
    });
    const { cookie } = await makeSession(t, person.sub);
    assert.deepEqual((await list(cookie)).map((c) => c.provider).sort(), ['github', 'local']);

    const removed = await remove(github.id, cookie);
    assert.equal(removed.statusCode, 204);
    assert.equal(removed.body, '');
    assert.deepEqual(
      (await list(cookie)).map((c) => c.kind),
      ['password'],
    );
    const [record] = await t.sql<{ actor: string; details: Record<string, unknown> }[]>`
      select actor, details from audit_events where event = 'method.removed' and subject = ${person.sub}`;
    assert.deepEqual({ ...record }, { actor: person.sub, details: { method_id: github.id } });

    const last = await remove((await list(cookie))[0]?.id as string, cookie);
    assert.equal(last.statusCode, 409);
    assert.equal((last.json() as { error: string }).error, 'last_sign_in_method');
  });

  test('a sign-in older than ten minutes must confirm the password first; a wrong one is refused, nothing removed', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'stale-session@acme-robotics.dev' });
    const github = await attachGithub(person.sub, '31337');
    const { cookie } = await makeSession(t, person.sub);
    t.clock.advance(601);

    const stale = await remove(github.id, cookie);
    assert.equal(stale.statusCode, 403);
    assert.deepEqual(stale.json(), {
      error: 'reauthentication_required',
      error_description:
        'Confirm it is you first: sign in again with any of your sign-in methods, or give your current password.',
      request_id: stale.headers['x-request-id'],
    });
    const wrong = await remove(github.id, cookie, { password: 'not the password at all' });
    assert.equal(wrong.statusCode, 403);
    assert.equal((wrong.json() as { error: string }).error, 'reauthentication_failed');
    assert.deepEqual((await list(cookie)).map((c) => c.provider).sort(), ['github', 'local']);

    const confirmed = await remove(github.id, cookie, { password: person.password });
    assert.equal(confirmed.statusCode, 204);
    assert.deepEqual(
      (await list(cookie)).map((c) => c.provider),
      ['local'],
    );
  });

  test("another person's method is not found and stays", async () => {
    const owner = await makeAccount(t.sql, t.secrets, config, { email: 'owner-of-method@acme-robotics.dev' });
    const method = await attachSignInMethod(t.sql, t.deps.audit, context, {
      identityId: owner.sub,
      kind: 'federated',
      provider: 'gitlab',
      externalSubject: '31337',
    });
    const intruder = await makeAccount(t.sql, t.secrets, config, { email: 'intruder@acme-robotics.dev' });
    const { cookie } = await makeSession(t, intruder.sub);
    const refused = await remove(method.id, cookie);
    assert.equal(refused.statusCode, 404);
    assert.deepEqual(refused.json(), {
      error: 'not_found',
      error_description: 'No such sign-in method',
      request_id: refused.headers['x-request-id'],
    });
    assert.equal((await t.sql`select 1 from sign_in_methods where id = ${method.id}`).length, 1);
  });
});
