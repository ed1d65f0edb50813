// The second step in Chromium (docs/identity.md "Second step"): a person whose account has TOTP signs in to an
// application through the redirect provider (a second Gatehouse); the hosted pages stop at /second-factor, refuse a
// wrong code with the envelope's words, take the right one and finish the authorization with a code whose ID token
// says aal2 and amr ["fed", "otp"].
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import type { Sub } from '../../src/identity/ids.ts';
import { enrollTotp, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { APPLICATION_CALLBACK, applicationArrival } from '../helpers/browser-application.ts';
import { roundTrip, startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';
import { makeClient } from '../helpers/oauth-fixtures.ts';
import { authorizeUrl, exchangeCodeAt, pkcePair } from '../helpers/oauth-flow.ts';

describe('GET /oauth/authorize → redirect provider → /second-factor → the application (Chromium)', () => {
  test('walks a person with TOTP through the second step and on to the application', async () => {
    // Two hosts (127.0.0.1 upstream, localhost downstream): one browser keeps each app's session cookie apart.
    const upstream = await startUpstream();
    const down = await startDownstream(upstream, () => ({}), 'localhost');
    const { client, secret } = await makeClient(down.sql, down.secrets.clientSecret, {
      redirectUris: [APPLICATION_CALLBACK],
    });
    const person = await upstreamPerson(upstream, 'dorothy@corp.dev', 'Dorothy Vaughan');
    // Known downstream already (a first sign-in made the identity), and has since turned on TOTP.
    await roundTrip(down, person.cookie);
    const [method] = await down.sql<{ identity_id: Sub }[]>`
      select identity_id from sign_in_methods where provider = 'corp' and external_subject = ${person.sub}`;
    const { totpSeed } = await enrollTotp(down.sql, down.secrets, method?.identity_id as Sub);

    const { page, problems, screenshot } = await newPage();
    await page
      .context()
      .addCookies([{ name: 'gatehouse_session', value: person.cookie.split('=')[1] as string, url: upstream.issuer }]);
    const arrived = applicationArrival(page);
    const { verifier, challenge } = pkcePair();
    await page.goto(
      `${down.url}${authorizeUrl({ client, challenge, scope: 'openid email', extra: { state: 'app-state-7' } })}`,
    );
    await page.waitForURL(/\/signin\?return_to=/);
    await page.getByRole('link', { name: 'Continue with Corp SSO' }).click();

    await page.waitForURL(/\/second-factor\?return_to=/);
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    const codeField = page.getByLabel('Authentication code');
    await codeField.fill(totpCode(totpSeed, new Date(down.clock.now().getTime() - 120_000)));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('The code is not correct; check the authenticator app and retry.').waitFor();
    await screenshot('second-factor-wrong-code');
    assert.match(page.url(), /\/second-factor\?/);

    await codeField.fill(totpCode(totpSeed, down.clock.now()));
    await page.getByRole('button', { name: 'Continue' }).click();
    const back = await arrived;
    assert.equal(back.searchParams.get('state'), 'app-state-7');
    const code = back.searchParams.get('code') ?? '';
    const token = await exchangeCodeAt(down.url, { client, secret, code, verifier });
    assert.equal(token.status, 200);
    const claims = decodeJwt(token.json.id_token as string);
    assert.equal(claims.acr, 'aal2');
    assert.deepEqual(claims.amr, ['fed', 'otp']);
    assert.deepEqual(problems, []);
  });
});
