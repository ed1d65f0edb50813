import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { genericOidc, makeConfig } from '../../test/helpers/config.ts';
import { providerSecretsDir } from '../../test/helpers/provider-secrets.ts';
import { genericProviderState, providerState } from './provider-state.ts';

describe('providerState', () => {
  it('tells off, enabled and deferred apart for redirect and web3 providers, naming the key that defers', () => {
    const dir = providerSecretsDir({ github: 'gh-secret-0b1c2d3e', google: 'Dummy', microsoft: 'ms-secret-1' });
    chmodSync(path.join(dir, 'provider-microsoft.secret'), 0o644);
    const config = makeConfig({
      secrets: { dir },
      providers: {
        github: { enabled: true, client_id: 'Iv1.8a61f9b3a7aba766' },
        google: { enabled: true, client_id: 'app-1' },
        slack: { enabled: true, client_id: '' },
        microsoft: { enabled: true, client_id: 'ms-app-1' },
        apple: { enabled: true, client_id: 'com.acme.web', team_id: 'placeholder', key_id: 'KEY1' },
        gitlab: { enabled: true, client_id: 'gitlab-app-1' },
        discord: { enabled: true, client_id: 'Placeholder' },
        ethereum: { enabled: true },
        farcaster: { enabled: true, relay_url: 'https://relay.example.com' },
      },
    });
    const file = (id: string) => path.join(dir, `provider-${id}.secret`);
    assert.deepEqual(providerState(config, 'github'), { state: 'enabled' });
    assert.deepEqual(providerState(config, 'google'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.google.client_secret',
      reason: `secret file ${file('google')} holds a placeholder`,
    });
    assert.deepEqual(providerState(config, 'slack'), {
      state: 'deferred',
      cause: 'missing',
      key: 'providers.slack.client_id',
      reason: 'client_id is empty',
    });
    assert.deepEqual(providerState(config, 'gitlab'), {
      state: 'deferred',
      cause: 'missing',
      key: 'providers.gitlab.client_secret',
      reason: `secret file ${file('gitlab')} is missing or empty`,
    });
    assert.deepEqual(providerState(config, 'microsoft'), {
      state: 'deferred',
      cause: 'unsafe',
      key: 'providers.microsoft.client_secret',
      reason: `secret file ${file('microsoft')} is readable by group or others (chmod 600)`,
    });
    assert.deepEqual(providerState(config, 'apple'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.apple.team_id',
      reason: 'team_id is a placeholder',
    });
    assert.deepEqual(providerState(config, 'discord'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.discord.client_id',
      reason: 'client_id is a placeholder',
    });
    assert.deepEqual(providerState(makeConfig(), 'gitlab'), { state: 'off' });
    assert.deepEqual(providerState(config, 'ethereum'), { state: 'enabled' });
    assert.deepEqual(providerState(config, 'farcaster'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.farcaster.relay_url',
      reason: 'relay_url is a placeholder host',
    });
    const relay = makeConfig({ providers: { farcaster: { enabled: true, relay_url: 'https://relay.farcaster.xyz' } } });
    assert.deepEqual(providerState(relay, 'farcaster'), { state: 'enabled' });
    const node = makeConfig({
      providers: {
        farcaster: { enabled: true, relay_url: 'https://relay.farcaster.xyz', rpc_url: 'https://example.com' },
      },
    });
    assert.deepEqual(providerState(node, 'farcaster'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.farcaster.rpc_url',
      reason: 'rpc_url is a placeholder host',
    });
  });

  it('decides a generic OpenID Connect provider by the same rules, under providers.oidc.<id>', () => {
    const dir = providerSecretsDir({ corp: 'corp-secret-1', lab: 'test' });
    const entry = (id: string) => genericOidc({ id, issuer: 'https://sso.corp.dev' });
    const config = makeConfig({
      secrets: { dir },
      providers: { oidc: [entry('corp'), entry('lab'), { ...entry('off'), enabled: false }] },
    });
    assert.deepEqual(genericProviderState(config, 'corp'), { state: 'enabled' });
    assert.deepEqual(genericProviderState(config, 'lab'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.oidc.lab.client_secret',
      reason: `secret file ${path.join(dir, 'provider-lab.secret')} holds a placeholder`,
    });
    assert.deepEqual(genericProviderState(config, 'off'), { state: 'off' });
    assert.deepEqual(genericProviderState(config, 'nobody'), { state: 'off' });
  });
});
