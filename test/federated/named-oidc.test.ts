// Google, GitLab (self-hosted base URL) and Slack are plain OpenID Connect: each named selection, pointed at a
// stand-in issuer (a second Gatehouse), signs in through the same shared callback and records the link under its
// own provider id, so one person's Google and Slack accounts are two methods, never one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundTrip, startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';

describe('named OpenID Connect selections: google, gitlab, slack', async () => {
  const upstream = await startUpstream();
  const down = await startDownstream(upstream, () => ({ named: ['google', 'gitlab', 'slack'] }));

  test('GET /auth/providers offers each with a start URL', async () => {
    const response = await fetch(`${down.url}/auth/providers`);
    const body = (await response.json()) as { providers: { id: string; start_url: string | null }[] };
    assert.deepEqual(
      body.providers.map((p) => [p.id, p.start_url]),
      [
        ['google', '/auth/federated/start?provider=google'],
        ['gitlab', '/auth/federated/start?provider=gitlab'],
        ['slack', '/auth/federated/start?provider=slack'],
        ['corp', '/auth/federated/start?provider=corp'],
      ],
    );
  });

  test('each signs in through the shared callback and keys the link by its own provider id', async () => {
    const person = await upstreamPerson(upstream, 'hedy@corp.dev');
    const first = await roundTrip(down, person.cookie, { start: '/auth/federated/start?provider=google' });
    assert.equal(first.done.status, 303);
    assert.equal(first.done.headers.get('location'), '/');
    const [owner] = await down.sql`select identity_id from sign_in_methods where provider = 'google'`;
    // The same upstream account under another selection is another external account: with its email already
    // verified at the identity Google created, it is refused rather than merged, until linked from that identity.
    const other = await roundTrip(down, person.cookie, { start: '/auth/federated/start?provider=slack' });
    assert.equal(other.done.status, 409);
    const linked = await roundTrip(down, person.cookie, {
      jar: first.jar,
      start: '/account/connections/start?provider=gitlab&return_to=%2Fsettings',
    });
    assert.equal(linked.done.status, 303);
    const rows = await down.sql`select provider, identity_id from sign_in_methods order by id`;
    assert.deepEqual(
      rows.map((r) => [r.provider, r.identity_id]),
      [
        ['google', owner?.identity_id],
        ['gitlab', owner?.identity_id],
      ],
    );
    const authorize = new URL(first.authorize);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('redirect_uri'), `${down.issuer}/auth/federated/callback`);
    assert.equal(authorize.searchParams.get('scope'), 'openid email profile');
  });
});
