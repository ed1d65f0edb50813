import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeConfig } from '../../test/helpers/config.ts';
import { providerState } from './provider-state.ts';

describe('providerState', () => {
  it('tells off, enabled and deferred apart for redirect and web3 providers, naming the key that defers', () => {
    const config = makeConfig({
      providers: {
        github: { enabled: true, client_id: 'Iv1.8a61f9b3a7aba766', client_secret: 'gh-secret-0b1c2d3e' },
        google: { enabled: true, client_id: 'app-1', client_secret: 'Dummy' },
        slack: { enabled: true, client_id: '', client_secret: 'x' },
        gitlab: { enabled: false, client_id: 'placeholder', client_secret: 'placeholder' },
        ethereum: { enabled: true },
        farcaster: { enabled: true, relay_url: 'https://relay.example.com' },
      },
    });
    assert.deepEqual(providerState(config, 'github'), { state: 'enabled' });
    assert.deepEqual(providerState(config, 'google'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.google.client_secret',
      reason: 'client_secret is a placeholder',
    });
    assert.deepEqual(providerState(config, 'slack'), {
      state: 'deferred',
      cause: 'missing',
      key: 'providers.slack.client_id',
      reason: 'client_id is empty',
    });
    assert.deepEqual(providerState(config, 'gitlab'), { state: 'off' });
    assert.deepEqual(providerState(config, 'ethereum'), { state: 'enabled' });
    assert.deepEqual(providerState(config, 'farcaster'), {
      state: 'deferred',
      cause: 'placeholder',
      key: 'providers.farcaster.relay_url',
      reason: 'relay_url is a placeholder host',
    });
    const relay = makeConfig({ providers: { farcaster: { enabled: true, relay_url: 'https://relay.farcaster.xyz' } } });
    assert.deepEqual(providerState(relay, 'farcaster'), { state: 'enabled' });
  });
});
