// docs/integrations.md "oidc-client-ts": the quoted UserManager in a single-page app in Chromium signs in through
// Gatehouse with a `browser` client: the code flow with PKCE, the token request from the app's own origin (CORS),
// and the profile completed from userinfo.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';
import { startSpa } from './spa/spa-server.ts';

describe('oidc-client-ts in Chromium with Gatehouse', async () => {
  const t = await startListeningIssuer();
  let clientId = '';
  const spa = await startSpa(() => ({ issuer: t.issuer, clientId }));
  const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'browser',
    redirectUris: [`${spa}/callback`],
  });
  clientId = client.id;
  const sub = await makeIdentity(t.sql, { displayName: 'Mary Jackson', email: 'mary@example.test' });
  const { cookie } = await makeSession(t, sub);

  test('the SPA signs in with code + PKCE and gets tokens and the profile', async () => {
    const { page, problems } = await newPage();
    const [name, value] = cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: t.issuer }]);
    const authorizations: URL[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${t.issuer}/oauth/authorize`)) authorizations.push(new URL(r.url()));
    });
    await page.goto(spa);
    await page.waitForURL(`${spa}/callback?**`);
    const text = await page.locator('#result').filter({ hasText: /./ }).textContent();
    const result = JSON.parse(text ?? '{}') as { profile?: Record<string, unknown>; scope?: string; error?: string };
    assert.equal(result.error, undefined, result.error);
    assert.equal(authorizations.length, 1);
    assert.equal(authorizations[0]?.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(result.scope, 'openid profile email');
    assert.equal(result.profile?.sub, sub);
    assert.equal(result.profile?.iss, t.issuer);
    assert.equal(result.profile?.name, 'Mary Jackson');
    assert.equal(result.profile?.email, 'mary@example.test');
    assert.deepEqual(problems, []);
  });
});
