import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testSecrets } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { createAudit } from '../audit/audit.ts';
import { GatehouseError } from '../http/errors.ts';
import { attachSignInMethod, removeSignInMethod } from './sign-in-methods.ts';
import { findPrimaryEmail, insertIdentity, listSignInMethods } from './store.ts';

describe('sign-in method rules', async () => {
  const { sql } = await createTestDatabase();
  const audit = createAudit(sql, testSecrets().audit);
  const context = { actor: null, clientIp: '192.0.2.1', requestId: 'req-test' };
  const person = (email = 'same@acme.test') =>
    insertIdentity(sql, { displayName: 'Person', assurance: 'ial1', email: { address: email, verified: true } });
  const github = (identityId: Awaited<ReturnType<typeof person>>, externalSubject = '4242') => ({
    identityId,
    kind: 'federated' as const,
    provider: 'github',
    externalSubject,
  });
  const rejects = async (work: Promise<unknown>, code: string, status: number) =>
    await assert.rejects(work, (error: unknown) => {
      assert.ok(error instanceof GatehouseError);
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      return true;
    });

  it('refuses to attach a method that belongs to another identity with 409 method_conflict', async () => {
    const alice = await person();
    const mallory = await person();
    await attachSignInMethod(sql, audit, context, github(alice));
    await rejects(attachSignInMethod(sql, audit, context, github(mallory)), 'method_conflict', 409);
    assert.equal((await listSignInMethods(sql, mallory)).length, 0, 'nothing was linked or merged');
    assert.equal((await listSignInMethods(sql, alice))[0]?.identityId, alice);
  });

  it('attaches the same method to its own identity idempotently', async () => {
    const bob = await person();
    const first = await attachSignInMethod(sql, audit, context, github(bob, '777'));
    const again = await attachSignInMethod(sql, audit, context, github(bob, '777'));
    assert.equal(again.id, first.id);
  });

  it('lets exactly one of two identities racing for one external account win', async () => {
    const [one, two] = await Promise.all([person(), person()]);
    const results = await Promise.allSettled([
      attachSignInMethod(sql, audit, context, github(one, 'race')),
      attachSignInMethod(sql, audit, context, github(two, 'race')),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const [refused] = results.filter((r) => r.status === 'rejected');
    assert.equal(((refused as PromiseRejectedResult).reason as GatehouseError).code, 'method_conflict');
  });

  it('refuses to remove the last method with 409 last_sign_in_method, and removes any other', async () => {
    const carol = await person();
    const a = await attachSignInMethod(sql, audit, context, github(carol, 'c1'));
    const b = await attachSignInMethod(sql, audit, context, { ...github(carol, 'c2'), provider: 'gitlab' });
    await removeSignInMethod(sql, audit, context, carol, a.id);
    await rejects(removeSignInMethod(sql, audit, context, carol, b.id), 'last_sign_in_method', 409);
    assert.deepEqual(
      (await listSignInMethods(sql, carol)).map((m) => m.id),
      [b.id],
    );
    await rejects(removeSignInMethod(sql, audit, context, carol, a.id), 'not_found', 404);
  });

  it('never removes both of the last two methods when two removals race', async () => {
    const dave = await person();
    const a = await attachSignInMethod(sql, audit, context, github(dave, 'd1'));
    const b = await attachSignInMethod(sql, audit, context, github(dave, 'd2'));
    const results = await Promise.allSettled([
      removeSignInMethod(sql, audit, context, dave, a.id),
      removeSignInMethod(sql, audit, context, dave, b.id),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal((await listSignInMethods(sql, dave)).length, 1);
  });

  it('keeps the same email at two identities as two identities', async () => {
    const first = await person('Shared@Acme.test');
    const second = await person('shared@acme.test');
    assert.notEqual(first, second);
    assert.deepEqual(await findPrimaryEmail(sql, first), { address: 'Shared@Acme.test', verified: true });
    assert.deepEqual(await findPrimaryEmail(sql, second), { address: 'shared@acme.test', verified: true });
    await attachSignInMethod(sql, audit, context, github(first, 'shared-1'));
    await attachSignInMethod(sql, audit, context, github(second, 'shared-2'));
    const [row] =
      await sql`select count(distinct identity_id)::int as n from emails where normalized = 'shared@acme.test'`;
    assert.equal(row?.n, 2);
  });

  it('records attach, refusal and removal in the audit log', async () => {
    const events = await sql`select event from audit_events where request_id = 'req-test' order by id`;
    const names = new Set(events.map((e) => e.event));
    for (const name of ['method.attached', 'method.attach_refused', 'method.removed']) assert.ok(names.has(name), name);
  });
});
