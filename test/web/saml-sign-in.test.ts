// SP-initiated SAML sign-in in Chromium, end to end: an OAuth authorization sends the signed-out browser to the
// hosted sign-in page; the email's domain belongs to a SAML connection, so the page sends the browser to
// /auth/saml/corp/start, which redirects with a signed AuthnRequest to an identity provider running in the test;
// its HTTP-POST form returns to the ACS, and the authorization finishes with a code that the relying party exchanges
// for an ID token naming the new identity.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { makeAccount } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { applicationArrival } from '../helpers/browser-application.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { exchangeCodeAt, pkcePair } from '../helpers/oauth-flow.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';
import { makeKeyPair, startTestIdp } from '../helpers/saml-idp.ts';

const sp = makeKeyPair('gatehouse-sp');
// Who the identity provider signs in; the linking test below switches to another employee.
let person = { nameId: 'emp-4711', attributes: { email: 'grace@corp.example', displayName: 'Grace Hopper' } };
const idp = await startTestIdp({
  spCert: sp.cert,
  person: () => person,
  mode: 'encrypt',
});
after(() => idp.stop());
const config = makeConfig({
  secrets: { dir: providerSecretsDir({ 'saml-corp.key': sp.key, 'saml-corp.crt': sp.cert }) },
  // The account page (linking) needs self-service, which needs delivery configured; nothing is sent here.
  self_service: { enabled: true },
  delivery: {
    kind: 'smtp',
    from: 'id@acme-robotics.dev',
    smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
  },
});
// The identity provider is configured from its metadata file, as an operator would.
const metadataFile = path.join(scratchDir('gatehouse-saml-metadata-'), 'idp-metadata.xml');
writeFileSync(metadataFile, idp.metadataXml);
config.saml = {
  corp: {
    name: 'Corp single sign-on',
    idp_metadata_file: metadataFile,
    idp_metadata_url: '',
    idp_metadata_refresh_seconds: 3600,
    idp_entity_id: '',
    idp_sso_url: '',
    idp_certificate_files: [],
    email_domains: ['corp.example'],
    display_name_attribute: 'displayName',
    email_attribute: 'email',
    sign_up: true,
    mfa_authn_contexts: [],
  },
};
const t = await startBrowserApp(config);

describe('GET /signin → /auth/saml/corp/start → IdP → POST /auth/saml/corp/acs → /oauth/authorize (Chromium)', () => {
  test('a company email signs in through the identity provider and the authorization ends in a code the relying party redeems', async () => {
    const app = 'https://app.acme-robotics.dev/callback';
    const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, { redirectUris: [app] });
    const pkce = pkcePair();
    const { page, problems } = await newPage();
    const arrived = applicationArrival(page);
    const authorize = new URL(`${t.url}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: client.id,
      redirect_uri: app,
      response_type: 'code',
      scope: 'openid email profile',
      state: 'rp-state-7',
      nonce: 'rp-nonce-7',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.href);
    await page.waitForURL(/\/signin\?return_to=/);
    await page.getByLabel('Email address').fill('grace@corp.example');
    await page.getByRole('button', { name: 'Continue' }).click();
    // At the identity provider, which received a signed AuthnRequest for our ACS.
    await page.waitForURL(`${idp.url}/sso?**`);
    assert.equal(idp.requests.at(-1)?.acsUrl, `${t.url}/auth/saml/corp/acs`);
    await page.getByRole('button', { name: 'Continue to the service' }).click();

    const back = await arrived;
    assert.equal(back.searchParams.get('state'), 'rp-state-7');
    assert.equal(back.searchParams.get('iss'), t.url);
    const code = back.searchParams.get('code') ?? '';
    assert.match(code, /.+/);

    const token = await exchangeCodeAt(t.url, { client, secret, code, verifier: pkce.verifier, redirectUri: app });
    assert.equal(token.status, 200);
    const tokens = token.json as { id_token: string; access_token: string };
    const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1] as string, 'base64url').toString());
    const [method] = await t.sql`select identity_id from sign_in_methods
                                 where kind = 'saml' and provider = 'corp' and external_subject = 'emp-4711'`;
    assert.equal(claims.sub, method?.identity_id);
    assert.equal(claims.nonce, 'rp-nonce-7');
    assert.deepEqual([claims.acr, claims.amr], ['aal1', ['fed']]);
    const userinfo = await fetch(`${t.url}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    const profile = (await userinfo.json()) as Record<string, unknown>;
    assert.equal(profile.sub, claims.sub);
    assert.equal(profile.name, 'Grace Hopper');
    // The identity provider's email is an unverified claim here.
    assert.deepEqual([profile.email, profile.email_verified], ['grace@corp.example', false]);
    assert.deepEqual(problems, []);
  });
});

describe('GET /admin/saml-connections and the console page "Single sign-on" (Chromium)', () => {
  test('the owner reads what the identity provider needs (metadata URL, entity id, ACS) and the certificates', async () => {
    const anonymous = await fetch(`${t.url}/admin/saml-connections`);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { error: string }).error, 'login_required');

    await t.sql`insert into organizations (id, name) values ('acme', 'Acme') on conflict do nothing`;
    const owner = await makeAccount(t.sql, t.secrets, t.config, {
      email: 'owner@acme-robotics.dev',
      roles: ['owner'],
      assurance: 'ial2',
      organizationId: 'acme',
    });
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/single-sign-on', owner);
    await page.getByRole('heading', { name: 'Corp single sign-on corp' }).waitFor();
    const metadata = `${t.url}/auth/saml/corp/metadata`;
    assert.equal(await page.getByRole('link', { name: metadata }).getAttribute('href'), metadata);
    await page.getByText(`${t.url}/auth/saml/corp/acs`).waitFor();
    await page.getByText('corp.example', { exact: true }).waitFor();
    await page.getByText('never counts: every sign-in here is single-factor (aal1)').waitFor();
    // openssl made both certificates for two days: each is flagged as expiring.
    assert.equal(await page.getByText('Warning').count(), 2);
    // Long URLs wrap on a phone instead of widening the page (run in the page: no DOM types in the tests).
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = (await page.evaluate(`[...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > 390.5 && !e.closest('.visually-hidden'))
      .map((e) => e.tagName.toLowerCase() + ' ' + (e.textContent || '').slice(0, 40)).slice(0, 5)`)) as string[];
    assert.deepEqual(wide, []);
    assert.deepEqual(problems, []);
  });
});

describe('GET /settings: "Add sign-in with <connection>" links a SAML connection (Chromium)', () => {
  test('a signed-in person links the connection through the identity provider, sees it listed by name, and removes it', async () => {
    person = { nameId: 'emp-0815', attributes: { email: 'alan@corp.example', displayName: 'Alan Turing' } };
    const sub = await makeIdentity(t.sql, { email: 'alan@acme.dev', displayName: 'Alan Turing' });
    await t.sql`insert into sign_in_methods (identity_id, kind, provider, external_subject, label)
                values (${sub}, 'password', 'local', 'alan@acme.dev', 'Password')`;
    const cookie = (await makeSession(t, sub)).cookie;
    const { page, problems } = await newPage();
    await page.context().addCookies([{ name: 'gatehouse_session', value: cookie.split('=')[1] as string, url: t.url }]);
    await page.goto(`${t.url}/settings`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Ways to sign in' }) });
    await section.getByRole('link', { name: 'Add sign-in with Corp single sign-on' }).click();
    await page.waitForURL(`${idp.url}/sso?**`);
    await page.getByRole('button', { name: 'Continue to the service' }).click();
    await page.waitForURL(`${t.url}/settings`);
    const linked = section.locator('ul.connections li', { hasText: 'Corp single sign-on' });
    await linked.waitFor();
    // Named by the connection, labelled with the email the identity provider sent.
    assert.match((await linked.textContent()) ?? '', /Corp single sign-on \(alan@corp\.example\)/);
    assert.equal(await section.getByRole('link', { name: 'Add sign-in with Corp single sign-on' }).count(), 0);
    const [row] = await t.sql`select identity_id from sign_in_methods
                              where kind = 'saml' and provider = 'corp' and external_subject = 'emp-0815'`;
    assert.equal(row?.identity_id, sub);

    await linked.getByRole('button', { name: 'Remove' }).click();
    await section.getByRole('link', { name: 'Add sign-in with Corp single sign-on' }).waitFor();
    assert.equal(
      (await t.sql`select 1 from sign_in_methods where kind = 'saml' and external_subject = 'emp-0815'`).length,
      0,
    );
    assert.deepEqual(problems, []);
  });
});

describe('GET /signin: "Sign in with <connection>" besides email-domain routing (Chromium)', () => {
  test('the sign-in page offers the SAML connection by name and its button signs in through the identity provider', async () => {
    person = { nameId: 'emp-4711', attributes: { email: 'grace@corp.example', displayName: 'Grace Hopper' } };
    const { page, problems } = await newPage();
    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    await page.getByRole('link', { name: 'Sign in with Corp single sign-on' }).click();
    await page.waitForURL(`${idp.url}/sso?**`);
    await page.getByRole('button', { name: 'Continue to the service' }).click();
    await page.waitForURL(`${t.url}/settings`);
    await page.getByRole('heading', { name: 'Ways to sign in' }).waitFor();
    await page.locator('ul.connections li', { hasText: 'Corp single sign-on (grace@corp.example)' }).waitFor();
    assert.deepEqual(problems, []);
  });
});
