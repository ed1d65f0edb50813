// grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693) against a listening Gatehouse, with
// oauth4webapi's generic grant request as the exchanging APIs' backends would send it: a person signs in to a web app
// for the orders API; the orders API exchanges the token for one to the billing API, which exchanges it again for
// the ledger API. Every refusal is asserted with its whole envelope, and revoking the person's grant ends every token
// of the chain.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Client } from '../../src/clients/store.ts';
import { dpopKeys, followRealTime, proof } from '../helpers/dpop.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { clientCredentialsToken, pkcePair, postForm } from '../helpers/oauth-flow.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const insecure = { [oauth.allowInsecureRequests]: true };

describe('POST /oauth/token grant_type=urn:ietf:params:oauth:grant-type:token-exchange', async () => {
  const t = await startListeningIssuer();
  followRealTime(t.clock);
  const issuer = new URL(t.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const orders = await makeResource(t.sql, 'https://orders.acme.test/', ['orders:read', 'orders:write']);
  const billing = await makeResource(t.sql, 'https://billing.acme.test/', ['billing:read', 'billing:write']);
  const ledger = await makeResource(t.sql, 'https://ledger.acme.test/', ['ledger:read']);
  // The web app people sign in to; its grant holds scopes of all three APIs, billing:write excepted.
  const app = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'web',
    scopes: ['openid', 'offline_access', 'orders:read', 'billing:read', 'billing:write', 'ledger:read'],
    audiences: [orders.audience, billing.audience, ledger.audience],
  });
  // The orders API's backend: it may exchange for billing, and request both billing scopes.
  const ordersApi = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'service',
    name: 'Orders API',
    audiences: [orders.audience],
    scopes: ['orders:read', 'billing:read', 'billing:write'],
    tokenExchangeAudiences: [billing.audience],
  });
  // The billing API's backend: it may exchange for the ledger.
  const billingApi = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'service',
    name: 'Billing API',
    audiences: [billing.audience],
    scopes: ['billing:read', 'ledger:read'],
    tokenExchangeAudiences: [ledger.audience],
  });
  // Provisioned for orders like the orders API, but no administrator allowed it any exchange (the default).
  const reporting = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'service',
    audiences: [orders.audience],
    scopes: ['orders:read'],
  });
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);

  /** The person signs in to the web app for the three APIs; returns the token response for `resource`. */
  async function signIn(resource = orders.audience, headers: Record<string, string> = {}) {
    const { verifier, challenge } = pkcePair();
    const url = new URL('/oauth/authorize', t.issuer);
    url.search = new URLSearchParams([
      ['response_type', 'code'],
      ['client_id', app.client.id],
      ['redirect_uri', app.client.redirectUris[0] as string],
      ['scope', 'openid offline_access orders:read billing:read ledger:read'],
      ['code_challenge', challenge],
      ['code_challenge_method', 'S256'],
      ['resource', orders.audience],
      ['resource', billing.audience],
      ['resource', ledger.audience],
    ]).toString();
    const code = (await browse(url, cookie)).searchParams.get('code') as string;
    const r = await postForm(
      t,
      '/oauth/token',
      {
        grant_type: 'authorization_code',
        client_id: app.client.id,
        client_secret: app.secret as string,
        code,
        redirect_uri: app.client.redirectUris[0] as string,
        code_verifier: verifier,
        resource,
      },
      headers,
    );
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return r.json as { access_token: string; refresh_token: string; scope: string };
  }

  /** The token exchange request an API's backend sends, with oauth4webapi. */
  function exchangeRequest(
    who: { client: Client; secret: string | null },
    parameters: Record<string, string>,
    options: { DPoP?: oauth.DPoPHandle } = {},
  ) {
    const client: oauth.Client = { client_id: who.client.id };
    const auth = who.secret ? oauth.ClientSecretPost(who.secret) : oauth.None();
    return {
      client,
      response: oauth.genericTokenEndpointRequest(as, client, auth, GRANT, parameters, { ...insecure, ...options }),
    };
  }

  async function exchange(
    who: { client: Client; secret: string | null },
    subjectToken: string,
    audience: string,
    extra: Record<string, string> = {},
    options: { DPoP?: oauth.DPoPHandle } = {},
  ) {
    const parameters = { subject_token: subjectToken, subject_token_type: ACCESS_TOKEN, resource: audience, ...extra };
    const { client, response } = exchangeRequest(who, parameters, options);
    return oauth.processGenericTokenEndpointResponse(as, client, await response);
  }

  /** Asserts the exchange is refused with exactly this envelope. */
  async function refused(
    who: { client: Client; secret: string | null },
    parameters: Record<string, string>,
    expected: { status?: number; error: string; description: string },
  ) {
    const { client, response } = exchangeRequest(who, parameters);
    const answer = await response;
    const requestId = answer.headers.get('x-request-id');
    await assert.rejects(oauth.processGenericTokenEndpointResponse(as, client, answer), (error: unknown) => {
      assert.ok(error instanceof oauth.ResponseBodyError, String(error));
      assert.equal(error.status, expected.status ?? 400);
      assert.deepEqual(error.cause, {
        error: expected.error,
        error_description: expected.description,
        request_id: requestId,
      });
      return true;
    });
  }

  const introspect = async (who: { client: Client; secret: string | null }, token: string) =>
    (await postForm(t, '/oauth/introspect', { client_id: who.client.id, client_secret: who.secret as string, token }))
      .json;

  test('discovery lists the grant type', () => {
    assert.ok(as.grant_types_supported?.includes(GRANT), JSON.stringify(as.grant_types_supported));
  });

  test('the orders API exchanges the token it received for one to billing: same person, act names it', async () => {
    const subject = await signIn();
    const subjectClaims = decodeJwt(subject.access_token);
    assert.equal(subjectClaims.aud, orders.audience);
    const result = await exchange(ordersApi, subject.access_token, billing.audience);
    assert.equal(result.issued_token_type, ACCESS_TOKEN);
    assert.equal(result.token_type, 'bearer');
    assert.equal(result.refresh_token, undefined, 'an exchange never issues a refresh token');
    assert.equal(result.id_token, undefined);
    // The person granted billing:read only; the orders API may ask billing:write too, which the grant does not hold.
    assert.equal(result.scope, 'billing:read');
    const claims = decodeJwt(result.access_token);
    assert.equal(claims.sub, sub);
    assert.equal(claims.aud, billing.audience);
    assert.equal(claims.client_id, ordersApi.client.id);
    assert.equal(claims.scope, 'billing:read');
    assert.deepEqual(claims.act, { sub: ordersApi.client.id });
    assert.equal(claims.gid, subjectClaims.gid, 'tied to the grant the subject token came from');
    assert.equal(claims.acr, subjectClaims.acr);
    assert.deepEqual(claims.amr, subjectClaims.amr);
    assert.ok((claims.exp as number) <= (subjectClaims.exp as number), 'never outlives the subject token');

    // The billing API (a service client provisioned for billing) introspects it: active, with the act claim.
    const seen = await introspect(billingApi, result.access_token);
    assert.equal(seen.active, true);
    assert.deepEqual(seen.act, { sub: ordersApi.client.id });
    assert.equal(seen.sub, sub);
    assert.equal(seen.aud, billing.audience);

    const [record] = await t.sql<{ actor: string; subject: string; details: Record<string, unknown> }[]>`
      select actor, subject, details from audit_events where event = 'oauth.token_exchanged' order by id desc limit 1`;
    assert.deepEqual(record, {
      actor: ordersApi.client.id,
      subject: subjectClaims.gid,
      details: {
        via: 'token_endpoint',
        audience: billing.audience,
        scope: 'billing:read',
        subject_client_id: app.client.id,
        delegation_depth: 1,
        dpop_bound: false,
      },
    });
  });

  test('an exchanged token exchanged again nests the prior actor in act (RFC 8693 §4.1)', async () => {
    const subject = await signIn();
    const toBilling = await exchange(ordersApi, subject.access_token, billing.audience);
    const toLedger = await exchange(billingApi, toBilling.access_token, ledger.audience, {
      audience: ledger.audience,
    });
    const claims = decodeJwt(toLedger.access_token);
    assert.equal(claims.sub, sub);
    assert.equal(claims.aud, ledger.audience);
    assert.equal(claims.client_id, billingApi.client.id);
    assert.equal(claims.scope, 'ledger:read');
    assert.deepEqual(claims.act, { sub: billingApi.client.id, act: { sub: ordersApi.client.id } });
  });

  test('a delegation chain stops after four exchanges with invalid_grant', async () => {
    let token = (await signIn()).access_token;
    // The orders API holds each token it exchanged for (issued to it), so it can exchange it once more.
    for (let depth = 1; depth <= 4; depth++) {
      token = (await exchange(ordersApi, token, billing.audience)).access_token;
      let act = decodeJwt(token).act as { act?: unknown } | undefined;
      let seen = 0;
      for (; act; act = act.act as { act?: unknown } | undefined) seen++;
      assert.equal(seen, depth);
    }
    await refused(
      ordersApi,
      { subject_token: token, subject_token_type: ACCESS_TOKEN, resource: billing.audience },
      {
        error: 'invalid_grant',
        description: 'The subject token was already exchanged 4 times: the delegation chain is too long',
      },
    );
  });

  test('scope asks for a part of the intersection; anything wider is invalid_scope, never narrowed', async () => {
    const subject = await signIn();
    const narrowed = await exchange(ordersApi, subject.access_token, billing.audience, { scope: 'billing:read' });
    assert.equal(narrowed.scope, 'billing:read');
    // billing:write: the client may request it, the person's grant does not hold it.
    await refused(
      ordersApi,
      {
        subject_token: subject.access_token,
        subject_token_type: ACCESS_TOKEN,
        resource: billing.audience,
        scope: 'billing:read billing:write',
      },
      {
        error: 'invalid_scope',
        description:
          'scope billing:write is not both granted by the person and allowed to this client at this audience',
      },
    );
    // ledger:read: the person granted it, but it is not a scope of the billing audience.
    await refused(
      ordersApi,
      {
        subject_token: subject.access_token,
        subject_token_type: ACCESS_TOKEN,
        resource: billing.audience,
        scope: 'ledger:read',
      },
      {
        error: 'invalid_scope',
        description: 'scope ledger:read is not both granted by the person and allowed to this client at this audience',
      },
    );
  });

  test('nothing in common between the grant, the client and the audience is invalid_scope', async () => {
    const writer = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'service',
      audiences: [orders.audience],
      scopes: ['orders:read', 'billing:write'],
      tokenExchangeAudiences: [billing.audience],
    });
    const subject = await signIn();
    await refused(
      writer,
      { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, resource: billing.audience },
      {
        error: 'invalid_scope',
        description: "The person's grant and this client share no scope of this audience: nothing to issue",
      },
    );
  });

  test('a client no administrator allowed exchange is unauthorized_client, and the refusal is audited', async () => {
    const subject = await signIn();
    await refused(
      reporting,
      { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, resource: billing.audience },
      {
        error: 'unauthorized_client',
        description: 'The client is not allowed token exchange (token_exchange_audiences is empty)',
      },
    );
    const [record] = await t.sql<{ actor: string; details: Record<string, unknown> }[]>`
      select actor, details from audit_events where event = 'oauth.token_exchange_refused' order by id desc limit 1`;
    assert.deepEqual(record, {
      actor: reporting.client.id,
      details: { via: 'token_endpoint', error: 'unauthorized_client', audience: billing.audience },
    });
  });

  test('a public client is unauthorized_client', async () => {
    const spa = await makeClient(t.sql, t.secrets.clientSecret, { kind: 'browser' });
    const subject = await signIn();
    await refused(
      spa,
      { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, resource: billing.audience },
      { error: 'unauthorized_client', description: 'Only confidential clients may exchange tokens' },
    );
  });

  test('an audience the client may not exchange for is invalid_target, as are two different targets', async () => {
    const subject = await signIn();
    const base = { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN };
    await refused(
      ordersApi,
      { ...base, resource: ledger.audience },
      { error: 'invalid_target', description: 'The client may not exchange tokens for this audience' },
    );
    await refused(
      ordersApi,
      { ...base, resource: 'https://unregistered.acme.test/' },
      { error: 'invalid_target', description: 'The client may not exchange tokens for this audience' },
    );
    await refused(
      ordersApi,
      { ...base, resource: billing.audience, audience: ledger.audience },
      {
        error: 'invalid_target',
        description: 'resource and audience name different APIs: a token is issued for one audience',
      },
    );
    // The same API named both ways (an empty path is `/`) is one target.
    const same = await exchange(ordersApi, subject.access_token, 'https://billing.acme.test', {
      audience: billing.audience,
    });
    assert.equal(decodeJwt(same.access_token).aud, billing.audience);
  });

  test('malformed requests are invalid_request, naming what to fix', async () => {
    const subject = await signIn();
    const cases: [Record<string, string>, string][] = [
      [{ subject_token_type: ACCESS_TOKEN, resource: billing.audience }, 'subject_token is required'],
      [{ subject_token: subject.access_token, resource: billing.audience }, 'subject_token_type is required'],
      [
        {
          subject_token: subject.access_token,
          subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
          resource: billing.audience,
        },
        `subject_token_type urn:ietf:params:oauth:token-type:id_token is not supported: only ${ACCESS_TOKEN}`,
      ],
      [
        {
          subject_token: subject.access_token,
          subject_token_type: ACCESS_TOKEN,
          resource: billing.audience,
          requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token',
        },
        `requested_token_type urn:ietf:params:oauth:token-type:refresh_token is not supported: only ${ACCESS_TOKEN}`,
      ],
      [
        {
          subject_token: subject.access_token,
          subject_token_type: ACCESS_TOKEN,
          resource: billing.audience,
          actor_token: subject.access_token,
          actor_token_type: ACCESS_TOKEN,
        },
        'actor_token is not supported: the authenticated client is the actor',
      ],
      [
        { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN },
        'resource or audience is required: name the API the new token is for',
      ],
    ];
    for (const [parameters, description] of cases)
      await refused(ordersApi, parameters, { error: 'invalid_request', description });
    assert.equal((await introspect(app, subject.access_token)).active, true, 'the refusals changed nothing');
  });

  test('a subject token that is not a live access token of ours, or not this client’s to hold, is invalid_grant', async () => {
    const subject = await signIn();
    const base = { subject_token_type: ACCESS_TOKEN, resource: billing.audience };
    const invalid = { error: 'invalid_grant', description: 'The subject token is invalid, expired or revoked' };
    await refused(ordersApi, { ...base, subject_token: 'not-a-token' }, invalid);
    // An ID token is a JWT we signed, but not an access token (RFC 9068 typ).
    const withId = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: app.client.id,
      client_secret: app.secret as string,
      refresh_token: subject.refresh_token,
    });
    await refused(ordersApi, { ...base, subject_token: withId.json.id_token as string }, invalid);
    // Issued for billing: the orders API neither received it nor serves billing.
    const forBilling = await signIn(billing.audience);
    await refused(
      ordersApi,
      { ...base, subject_token: forBilling.access_token },
      {
        error: 'invalid_grant',
        description: 'The subject token was neither issued to this client nor for an API it serves',
      },
    );
    // A client-credentials token has no person to act for.
    const cc = await clientCredentialsToken(
      t,
      { client: ordersApi.client, secret: ordersApi.secret as string, resource: orders },
      'orders:read',
    );
    assert.equal(cc.status, 200, JSON.stringify(cc.json));
    await refused(
      ordersApi,
      { ...base, subject_token: cc.json.access_token as string },
      {
        error: 'invalid_grant',
        description: 'The subject token has no person behind it (client credentials): only a person’s is exchanged',
      },
    );
    // Revoked on its own (RFC 7009): listed by jti.
    const revoked = await signIn();
    const r = await postForm(t, '/oauth/revoke', {
      client_id: app.client.id,
      client_secret: app.secret as string,
      token: revoked.access_token,
    });
    assert.equal(r.status, 200);
    await tokenStateSynced(t);
    await refused(ordersApi, { ...base, subject_token: revoked.access_token }, invalid);
  });

  test('revoking the person’s grant ends every token exchanged from it, and no new exchange succeeds', async () => {
    const subject = await signIn();
    const toBilling = await exchange(ordersApi, subject.access_token, billing.audience);
    const toLedger = await exchange(billingApi, toBilling.access_token, ledger.audience);
    assert.equal((await introspect(billingApi, toBilling.access_token)).active, true);
    assert.equal((await introspect(billingApi, toLedger.access_token)).active, true);
    // The web app signs the person out of it: RFC 7009 revocation of its refresh token revokes the grant.
    const r = await postForm(t, '/oauth/revoke', {
      client_id: app.client.id,
      client_secret: app.secret as string,
      token: subject.refresh_token,
    });
    assert.equal(r.status, 200);
    await tokenStateSynced(t);
    assert.deepEqual(await introspect(app, subject.access_token), { active: false });
    assert.deepEqual(await introspect(billingApi, toBilling.access_token), { active: false });
    assert.deepEqual(await introspect(billingApi, toLedger.access_token), { active: false });
    assert.deepEqual(await introspect(ordersApi, toBilling.access_token), { active: false });
    await refused(
      billingApi,
      { subject_token: toBilling.access_token, subject_token_type: ACCESS_TOKEN, resource: ledger.audience },
      { error: 'invalid_grant', description: 'The subject token is invalid, expired or revoked' },
    );
  });

  test('an exchanged token lives only while the client that exchanged for it exists', async () => {
    const gone = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'service',
      audiences: [orders.audience],
      scopes: ['billing:read'],
      tokenExchangeAudiences: [billing.audience],
    });
    const subject = await signIn();
    const exchanged = await exchange(gone, subject.access_token, billing.audience);
    assert.equal((await introspect(billingApi, exchanged.access_token)).active, true);
    await t.sql`delete from oauth_clients where id = ${gone.client.id}`;
    await tokenStateSynced(t);
    assert.deepEqual(await introspect(billingApi, exchanged.access_token), { active: false });
    assert.equal((await introspect(app, subject.access_token)).active, true, 'the subject token lives on');
  });

  test('a DPoP-bound subject token needs a DPoP proof, and the exchanged token is bound to its key', async () => {
    const appKeys = await dpopKeys();
    const subject = await signIn(orders.audience, {
      dpop: await proof(appKeys, { htm: 'POST', htu: `${t.issuer}/oauth/token` }),
    });
    assert.ok(decodeJwt(subject.access_token).cnf, 'the subject token is DPoP-bound');
    await refused(
      ordersApi,
      { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, resource: billing.audience },
      {
        error: 'invalid_dpop_proof',
        description: 'The subject token is DPoP-bound: send a DPoP proof, whose key the exchanged token is bound to',
      },
    );
    const apiKeys = await dpopKeys();
    const DPoP = oauth.DPoP({}, apiKeys as CryptoKeyPair);
    const bound = await exchange(ordersApi, subject.access_token, billing.audience, {}, { DPoP });
    assert.equal(bound.token_type, 'dpop');
    assert.deepEqual(decodeJwt(bound.access_token).cnf, {
      jkt: await calculateJwkThumbprint(await exportJWK(apiKeys.publicKey)),
    });
  });

  test('an exchanged token expires with its subject token', async () => {
    const subject = await signIn();
    const subjectExp = decodeJwt(subject.access_token).exp as number;
    t.clock.advance(t.config.tokens.access_token_ttl_seconds - 120);
    const late = await exchange(ordersApi, subject.access_token, billing.audience);
    assert.equal(decodeJwt(late.access_token).exp, subjectExp);
    assert.ok((late.expires_in as number) <= 120, `expires_in ${late.expires_in}`);
    t.clock.advance(121);
    await refused(
      ordersApi,
      { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, resource: billing.audience },
      { error: 'invalid_grant', description: 'The subject token is invalid, expired or revoked' },
    );
  });
});
