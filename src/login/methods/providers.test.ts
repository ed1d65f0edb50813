import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestApp } from '../../../test/helpers/app.ts';
import { genericOidc, makeConfig } from '../../../test/helpers/config.ts';
import { providerSecretsDir } from '../../../test/helpers/provider-secrets.ts';
import { makeKeyPair, startTestIdp } from '../../../test/helpers/saml-idp.ts';
import { samlConnection, startSamlApp } from '../../../test/helpers/saml-sp.ts';

const real = (client_id: string) => ({ enabled: true, client_id });

describe('GET /auth/providers', () => {
  it('lists passkeys alone by default: no providers, no self-service', async () => {
    const t = await startTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/auth/providers' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      providers: [],
      passkeys: true,
      self_service: false,
      dev_mailbox: false,
    });
    assert.equal(response.headers['cache-control'], 'public, max-age=60');
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });

  it('lists enabled providers with real credentials and their start URLs, and leaves out disabled, placeholder, secret-less and (Apple) team-less deferred ones', async () => {
    const t = await startTestApp({
      config: makeConfig({
        secrets: {
          dir: providerSecretsDir({
            github: 'github-secret-value-91',
            gitlab: 'gitlab-secret-value-91',
            google: 'a-real-looking-secret',
            microsoft: 'dummy',
            slack: 'slack-secret-value-91',
            corp: 'corp-secret-value-91',
            'provider-apple.p8': 'apple-key-value-91',
          }),
        },
        providers: {
          github: real('Iv1.8a61f9b3a7aba766'),
          gitlab: { ...real('gitlab-app-7'), enabled: false },
          google: { enabled: true, client_id: 'placeholder' },
          microsoft: real('ms-app-1'),
          slack: real('slack-app-3'),
          apple: real('com.acme.web'),
          ethereum: { enabled: true },
          farcaster: { enabled: false },
          oidc: [
            genericOidc({ id: 'corp', name: 'Corp SSO', issuer: 'https://sso.corp.dev' }),
            genericOidc({ id: 'lab', name: 'Lab SSO', issuer: 'https://sso.lab.dev', client_id: 'test' }),
          ],
        },
      }),
    });
    const response = await t.app.inject({ method: 'GET', url: '/auth/providers' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      providers: [
        { id: 'github', name: 'GitHub', kind: 'redirect', start_url: '/auth/federated/start?provider=github' },
        { id: 'slack', name: 'Slack', kind: 'redirect', start_url: '/auth/federated/start?provider=slack' },
        { id: 'corp', name: 'Corp SSO', kind: 'redirect', start_url: '/auth/federated/start?provider=corp' },
        { id: 'ethereum', name: 'Ethereum wallet', kind: 'web3', start_url: '/auth/web3/ethereum/start' },
      ],
      passkeys: true,
      self_service: false,
      dev_mailbox: false,
    });
    assert.doesNotMatch(response.body, /secret-value|Iv1\.8a61f9b3a7aba766/, 'no credential reaches the answer');
  });

  it('reports passkeys only when enabled with an RP ID browsers accept (never for an IP-address issuer)', async () => {
    const { sql } = await startTestApp();
    const cases = [
      [{ passkeys: { enabled: false } }, false],
      [{ server: { issuer: 'http://127.0.0.1:8080' } }, false],
      [{ server: { issuer: 'https://id.acme-robotics.dev' }, passkeys: { rp_id: 'acme-robotics.dev' } }, true],
    ] as const;
    for (const [overrides, expected] of cases) {
      const t = await startTestApp({ config: makeConfig(overrides), sql });
      const response = await t.app.inject({ method: 'GET', url: '/auth/providers' });
      assert.equal(response.json().passkeys, expected, JSON.stringify(overrides));
    }
  });

  it('reports self-service only when it is enabled and delivery is ready', async () => {
    const relay = {
      host: 'smtp.acme-robotics.dev',
      username: 'u',
      password_file: '/etc/gatehouse/secrets/smtp-password',
    };
    const cases = [
      [{ self_service: { enabled: true } }, false],
      [
        { self_service: { enabled: false }, delivery: { kind: 'smtp', from: 'id@acme-robotics.dev', smtp: relay } },
        false,
      ],
      [
        { self_service: { enabled: true }, delivery: { kind: 'smtp', from: 'id@acme-robotics.dev', smtp: relay } },
        true,
      ],
      [{ self_service: { enabled: true }, delivery: { kind: 'dev_mailbox' } }, true],
    ] as const;
    const { sql } = await startTestApp();
    for (const [overrides, expected] of cases) {
      const t = await startTestApp({ config: makeConfig(overrides), sql });
      const response = await t.app.inject({ method: 'GET', url: '/auth/providers' });
      assert.equal(response.json().self_service, expected, JSON.stringify(overrides));
      assert.equal(response.json().dev_mailbox, t.config.delivery.kind === 'dev_mailbox', JSON.stringify(overrides));
    }
  });

  it('lists each SAML connection by its name with its start route, as kind saml', async () => {
    const sp = makeKeyPair('gatehouse-sp');
    const idp = await startTestIdp({ spCert: sp.cert, person: () => ({ nameId: 'n', attributes: {} }) });
    try {
      const t = await startSamlApp(sp, {
        corp: samlConnection(idp, { name: 'Corp single sign-on' }),
        lab: samlConnection(idp, { name: 'Lab SSO', email_domains: ['lab.example'] }),
      });
      const response = await t.app.inject({ method: 'GET', url: '/auth/providers' });
      assert.deepEqual(response.json().providers, [
        { id: 'corp', name: 'Corp single sign-on', kind: 'saml', start_url: '/auth/saml/corp/start' },
        { id: 'lab', name: 'Lab SSO', kind: 'saml', start_url: '/auth/saml/lab/start' },
      ]);
    } finally {
      await idp.stop();
    }
  });
});
