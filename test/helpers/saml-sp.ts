// The service-provider side of the SAML tests: an app with `[saml.<id>]` connections and its SP key pair in the
// secrets directory, and the moves a browser (or an attacker) makes against it: start a sign-in, fetch the test IdP's
// answer, post a response to the ACS with a given cookie, and build answers to a request with one thing changed.
import assert from 'node:assert/strict';
import type { Config } from '../../src/config/schema.ts';
import type { Sql } from '../../src/db/pool.ts';
import { startTestApp, type TestApp } from './app.ts';
import { makeConfig } from './config.ts';
import { providerSecretsDir } from './provider-secrets.ts';
import { buildAssertion, buildResponse, type KeyPair, readAuthnRequest, type TestIdp } from './saml-idp.ts';

export const MFA = 'https://refeds.org/profile/mfa';

export interface Person {
  nameId: string;
  attributes: Record<string, string | string[]>;
}

/** `[saml.<id>]` with the schema's defaults and no identity provider yet; `overrides` names it. */
export const samlSettings = (overrides: Partial<Config['saml'][string]> = {}): Config['saml'][string] => ({
  name: 'Corp SSO',
  idp_metadata_file: '',
  idp_metadata_url: '',
  idp_metadata_refresh_seconds: 3600,
  idp_entity_id: '',
  idp_sso_url: '',
  idp_certificate_files: [],
  email_domains: ['corp.example'],
  display_name_attribute: 'displayName',
  email_attribute: 'email',
  sign_up: true,
  mfa_authn_contexts: [MFA],
  ...overrides,
});

export const samlConnection = (idp: TestIdp, overrides: Partial<Config['saml'][string]> = {}): Config['saml'][string] =>
  samlSettings({
    idp_entity_id: idp.entityId,
    idp_sso_url: idp.ssoUrl,
    idp_certificate_files: [idp.keys.certFile],
    ...overrides,
  });

export async function startSamlApp(sp: KeyPair, saml: Config['saml'], sql?: Sql): Promise<TestApp> {
  const files = Object.fromEntries(
    Object.keys(saml).flatMap((id) => [
      [`saml-${id}.key`, sp.key],
      [`saml-${id}.crt`, sp.cert],
    ]),
  );
  const config = makeConfig({ secrets: { dir: providerSecretsDir(files) } });
  config.saml = saml;
  return await startTestApp({ config, ...(sql ? { sql } : {}) });
}

export const assertEnvelope = (response: { json(): unknown; headers: Record<string, unknown> }, error: string) => {
  const body = response.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'request_id']);
  assert.equal(body.error, error);
  assert.equal(body.request_id, response.headers['x-request-id']);
};

/** The browser's and the attacker's moves against connection `corp` of `t`. */
export function spMoves(t: TestApp, sp: KeyPair, idp: TestIdp, person: Person) {
  const base = t.config.server.issuer;
  const acs = `${base}/auth/saml/corp/acs`;
  const entityId = `${base}/auth/saml/corp/metadata`;

  /** Starts a sign-in in a fresh "browser": its cookie and the AuthnRequest the IdP received. */
  async function start(returnTo = '/settings') {
    const response = await t.app.inject({ url: `/auth/saml/corp/start?return_to=${encodeURIComponent(returnTo)}` });
    assert.equal(response.statusCode, 302, response.body);
    const location = new URL(String(response.headers.location));
    const cookie = String(response.headers['set-cookie']).split(';')[0] as string;
    return { cookie, location, request: readAuthnRequest(location.search.slice(1), sp.cert) };
  }

  /** What the IdP answers, fetched over HTTP like the browser does: the SAMLResponse its form carries, decoded. */
  async function idpAnswer(location: URL): Promise<string> {
    const page = await (await fetch(location)).text();
    return Buffer.from(/name="SAMLResponse" value="([^"]+)"/.exec(page)?.[1] ?? '', 'base64').toString();
  }

  const post = (cookie: string | null, xml: string, accept = 'application/json') =>
    t.app.inject({
      method: 'POST',
      url: '/auth/saml/corp/acs',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept, ...(cookie ? { cookie } : {}) },
      payload: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64') }).toString(),
    });

  /** A well-formed assertion answering `requestId`, built here so a test can change one thing. */
  const assertionFor = (requestId: string | null, overrides: Partial<Parameters<typeof buildAssertion>[0]> = {}) =>
    buildAssertion({
      issuer: idp.entityId,
      nameId: person.nameId,
      audience: entityId,
      recipient: acs,
      inResponseTo: requestId,
      now: new Date(),
      attributes: person.attributes,
      ...overrides,
    });
  const responseFor = (requestId: string | null, inner: string, destination: string | null = acs) =>
    buildResponse({ issuer: idp.entityId, destination, inResponseTo: requestId, now: new Date() }, inner);

  const identities = async () => Number((await t.sql`select count(*)::int as n from identities`)[0]?.n);
  const methodOwner = async (subject: string) =>
    (await t.sql`select identity_id from sign_in_methods where kind = 'saml' and external_subject = ${subject}`)[0]
      ?.identity_id as string | undefined;

  return { acs, entityId, start, idpAnswer, post, assertionFor, responseFor, identities, methodOwner };
}
