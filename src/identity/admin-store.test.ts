import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestApp } from '../../test/helpers/app.ts';
import { makeIdentity } from '../../test/helpers/oauth-fixtures.ts';
import { changeAssurance, changeIdentityState, removeMembership, setMembershipRoles } from './admin-store.ts';
import type { Sub } from './ids.ts';

// The rule every owner-guarded change shares, checked directly: through the API the caller is always an active
// ial2 owner, so only a race (tested in test/admin/identities-api.test.ts) can reach it for a suspension.
describe('owner-guarded identity changes', async () => {
  const t = await startTestApp();
  await t.sql`insert into organizations (id, name) values ('acme', 'Acme'), ('labs', 'Labs')`;
  const owner = async (org = 'acme') => {
    const sub = await makeIdentity(t.sql, { assurance: 'ial2' });
    await t.sql`insert into memberships (organization_id, identity_id, roles) values (${org}, ${sub}, ${['owner']})`;
    return sub;
  };
  const guarded = (sub: Sub) => ({ sub, ownerOrganizationId: 'acme', now: t.clock.now() });
  const stateOf = async (sub: Sub) => (await t.sql`select state from identities where id = ${sub}`)[0]?.state;

  it('refuses suspending the only active ial2 owner with last_owner and leaves them active', async () => {
    const only = await owner();
    const outcome = await t.sql.begin((tx) =>
      changeIdentityState(tx, { ...guarded(only), from: 'active', to: 'suspended' }),
    );
    assert.deepEqual(outcome, { outcome: 'last_owner' });
    assert.equal(await stateOf(only), 'active');
  });

  it('suspends an owner once another active ial2 owner exists, and then guards the one left', async () => {
    const [first, second] = [await owner(), await owner()];
    await t.sql`update identities set state = 'suspended' where id in (select identity_id from memberships
                where organization_id = 'acme' and identity_id not in (${first}, ${second}))`;
    const suspend = (sub: Sub) =>
      t.sql.begin((tx) => changeIdentityState(tx, { ...guarded(sub), from: 'active', to: 'suspended' }));
    assert.deepEqual(await suspend(first), { outcome: 'changed' });
    assert.deepEqual(await suspend(second), { outcome: 'last_owner' });
    assert.deepEqual(await t.sql.begin((tx) => changeAssurance(tx, { ...guarded(second), assurance: 'ial1' })), {
      outcome: 'last_owner',
    });
    assert.deepEqual(
      await t.sql.begin((tx) =>
        setMembershipRoles(tx, { ...guarded(second), organizationId: 'acme', roles: ['admin'] }),
      ),
      { outcome: 'last_owner' },
    );
    assert.deepEqual(await t.sql.begin((tx) => removeMembership(tx, { ...guarded(second), organizationId: 'acme' })), {
      outcome: 'last_owner',
    });
  });

  it('does not guard organizations other than the bootstrap one', async () => {
    const labsOwner = await owner('labs');
    assert.deepEqual(
      await t.sql.begin((tx) => removeMembership(tx, { ...guarded(labsOwner), organizationId: 'labs' })),
      { outcome: 'removed', previous: ['owner'] },
    );
  });

  it('reports a missing identity or organization', async () => {
    const nobody = 'usr_nobody' as Sub;
    assert.deepEqual(
      await t.sql.begin((tx) => changeIdentityState(tx, { ...guarded(nobody), from: 'suspended', to: 'active' })),
      { outcome: 'not_found' },
    );
    assert.deepEqual(
      await t.sql.begin((tx) =>
        setMembershipRoles(tx, { ...guarded(nobody), organizationId: 'nope', roles: ['member'] }),
      ),
      { outcome: 'no_organization' },
    );
  });
});
