// docs/integrations.md "express-openid-connect": the quoted configuration in a real Express app, signing a person in
// through Gatehouse with the code flow (PKCE, state and nonce, as the library sends them) and client_secret_post.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import express from 'express';
import expressOpenidConnect from 'express-openid-connect';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { gatehouseAuth } from './snippets/express-openid-connect.ts';

// A CommonJS module whose exports Node cannot list for named imports.
const { auth, requiresAuth } = expressOpenidConnect;

describe('express-openid-connect with Gatehouse', async () => {
  const t = await startListeningIssuer();
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, { redirectUris: [`${baseURL}/callback`] });
  app.use(
    auth(
      gatehouseAuth({
        issuer: t.issuer,
        baseURL,
        clientID: client.id,
        clientSecret: secret as string,
        sessionSecret: 'a-test-secret-of-the-app-that-is-long-enough',
      }),
    ),
  );
  app.get('/profile', requiresAuth(), async (req, res) => {
    res.json({ user: req.oidc.user, claims: req.oidc.idTokenClaims, userinfo: await req.oidc.fetchUserInfo() });
  });
  const sub = await makeIdentity(t.sql, { displayName: 'Katherine Johnson', email: 'katherine@example.test' });
  const { cookie: gatehouseSession } = await makeSession(t, sub);

  test('a protected page signs the person in through Gatehouse and then shows their claims', async () => {
    const jar = new CookieJar();
    const first = await jar.fetch(`${baseURL}/profile`);
    assert.equal(first.status, 302);
    const authorize = new URL(first.headers.get('location') as string);
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${t.issuer}/oauth/authorize`);
    assert.equal(authorize.searchParams.get('response_type'), 'code');
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');

    const callback = await browse(authorize, gatehouseSession);
    assert.equal(`${callback.origin}${callback.pathname}`, `${baseURL}/callback`);
    const back = await jar.fetch(callback);
    assert.equal(back.status, 302, await back.clone().text());
    assert.equal(back.headers.get('location'), '/profile');

    const page = await jar.fetch(`${baseURL}/profile`);
    assert.equal(page.status, 200, await page.clone().text());
    const { user, claims, userinfo } = (await page.json()) as Record<string, Record<string, unknown>>;
    assert.equal(user?.sub, sub);
    // The library sent a nonce and a state of its own; Gatehouse bound the nonce into the ID token.
    assert.equal(claims?.nonce, authorize.searchParams.get('nonce'));
    assert.ok(authorize.searchParams.get('state'));
    assert.equal(claims?.iss, t.issuer);
    assert.equal(claims?.aud, client.id);
    assert.deepEqual(userinfo, {
      sub,
      name: 'Katherine Johnson',
      email: 'katherine@example.test',
      email_verified: true,
    });
  });
});
