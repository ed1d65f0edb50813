// The hosted sign-in page in Chromium: an OAuth authorization sends the signed-out browser to sign in, the person
// chooses the generic OpenID Connect provider (a second Gatehouse), signs in there, and the authorization finishes
// with a code for the application.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { applicationArrival } from '../helpers/browser-application.ts';
import { startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';
import { makeClient } from '../helpers/oauth-fixtures.ts';

describe('GET /signin → /auth/federated/start → callback → /oauth/authorize (Chromium)', () => {
  test('signs up through the upstream from the sign-in page and finishes the authorization with a code', async () => {
    // Two hosts (127.0.0.1 upstream, localhost downstream): one browser keeps each app's session cookie apart (cookies ignore ports).
    const upstream = await startUpstream();
    const down = await startDownstream(upstream, () => ({}), 'localhost');
    const app = 'https://app.acme-robotics.dev/callback';
    const { client } = await makeClient(down.sql, down.secrets.clientSecret, { redirectUris: [app] });
    const person = await upstreamPerson(upstream, 'katherine@corp.dev', 'Katherine Johnson');

    const { page, problems, screenshot } = await newPage();
    await page
      .context()
      .addCookies([{ name: 'gatehouse_session', value: person.cookie.split('=')[1] as string, url: upstream.issuer }]);
    const arrived = applicationArrival(page);
    const authorize = new URL(`${down.url}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: client.id,
      redirect_uri: app,
      response_type: 'code',
      scope: 'openid email',
      state: 'app-state-42',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.href);
    await page.waitForURL(/\/signin\?return_to=/);
    const button = page.getByRole('link', { name: 'Continue with Corp SSO' });
    await button.waitFor();
    await screenshot('signin-with-provider');
    await button.click();
    const back = await arrived;
    assert.equal(back.searchParams.get('state'), 'app-state-42');
    assert.match(back.searchParams.get('code') ?? '', /.+/);
    assert.equal(back.searchParams.get('iss'), down.issuer);
    const [method] = await down.sql`select external_subject from sign_in_methods where provider = 'corp'`;
    assert.equal(method?.external_subject, person.sub);
    assert.deepEqual(problems, []);
  });
});
