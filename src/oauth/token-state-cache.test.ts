import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TokenStateCache } from './token-state-cache.ts';

describe('TokenStateCache', () => {
  const at = new Date('2026-01-01T00:00:00Z');
  const listening = (maxAgeSeconds = 5) => {
    const cache = new TokenStateCache({ maxAgeSeconds, clock: () => at });
    cache.listened();
    return cache;
  };

  test('serves nothing and stores nothing before it listens', () => {
    const cache = new TokenStateCache({ maxAgeSeconds: 5, clock: () => at });
    assert.equal(cache.beginRead(), null);
    cache.store(0, 'grant:grt_1', 'usr_1');
    cache.listened();
    assert.equal(cache.get('grant:grt_1'), undefined);
  });

  test('drops what a read saw when an invalidation arrived while it was in flight', () => {
    const cache = listening();
    const epoch = cache.beginRead();
    cache.invalidate('grant:grt_1');
    cache.store(epoch, 'grant:grt_1', 'usr_1');
    assert.equal(cache.get('grant:grt_1'), undefined);
    cache.store(cache.beginRead(), 'grant:grt_1', 'usr_1');
    assert.equal(cache.get('grant:grt_1'), 'usr_1');
  });

  test('an invalidation deletes exactly its key', () => {
    const cache = listening();
    cache.store(cache.beginRead(), 'grant:grt_1', 'usr_1');
    cache.store(cache.beginRead(), 'jti:j1', true);
    cache.invalidate('grant:grt_1');
    assert.equal(cache.get('grant:grt_1'), undefined);
    assert.equal(cache.get('jti:j1'), true);
  });

  test('losing the connection empties the cache and refuses reads in flight until it listens again', () => {
    const cache = listening();
    const epoch = cache.beginRead();
    cache.store(epoch, 'jti:j1', true);
    cache.lost();
    assert.equal(cache.get('jti:j1'), undefined);
    assert.equal(cache.beginRead(), null);
    cache.listened();
    cache.store(epoch, 'jti:j2', true);
    assert.equal(cache.get('jti:j2'), undefined);
  });

  test('an entry expires after maxAgeSeconds, and at once when the clock goes back', () => {
    let now = at.getTime();
    const cache = new TokenStateCache({ maxAgeSeconds: 5, clock: () => new Date(now) });
    cache.listened();
    cache.store(cache.beginRead(), 'jti:j1', true);
    now += 4999;
    assert.equal(cache.get('jti:j1'), true);
    now += 1;
    assert.equal(cache.get('jti:j1'), undefined);
    cache.store(cache.beginRead(), 'jti:j2', true);
    now -= 60_000;
    assert.equal(cache.get('jti:j2'), undefined);
  });

  test('maxAgeSeconds 0 disables it', () => {
    const cache = listening(0);
    assert.equal(cache.enabled, false);
    assert.equal(cache.beginRead(), null);
  });
});
