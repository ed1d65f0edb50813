import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CACHE_SECONDS, cached } from './client-directory.ts';

/** A loader that answers only when told to, and counts its calls. */
function controlledLoader<T>() {
  const calls: { key: string; resolve: (value: T | null) => void; reject: (error: Error) => void }[] = [];
  const load = (key: string) =>
    new Promise<T | null>((resolve, reject) => {
      calls.push({ key, resolve, reject });
    });
  return { calls, load };
}

describe('the client directory cache', () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = () => new Date(now);

  test('concurrent misses of one key share one load; other keys load on their own', async () => {
    const { calls, load } = controlledLoader<string>();
    const { get: find } = cached(clock, load);
    const waiting = Array.from({ length: 32 }, () => find('cli_a'));
    const other = find('cli_b');
    assert.deepEqual(
      calls.map((c) => c.key),
      ['cli_a', 'cli_b'],
    );
    calls[0]?.resolve('client a');
    calls[1]?.resolve('client b');
    assert.deepEqual(new Set(await Promise.all(waiting)), new Set(['client a']));
    assert.equal(await other, 'client b');
  });

  test('keeps a value for CACHE_SECONDS counted from before the read, then loads again', async () => {
    const { calls, load } = controlledLoader<string>();
    const { get: find } = cached(clock, load);
    const first = find('cli_a');
    now += 1000; // the read took a second
    calls[0]?.resolve('v1');
    assert.equal(await first, 'v1');
    now += (CACHE_SECONDS - 1) * 1000 - 1;
    assert.equal(await find('cli_a'), 'v1');
    assert.equal(calls.length, 1);
    now += 1;
    const again = find('cli_a');
    assert.equal(calls.length, 2);
    calls[1]?.resolve('v2');
    assert.equal(await again, 'v2');
  });

  test('a reload reads again although a value is kept, and keeps what it read', async () => {
    const { calls, load } = controlledLoader<string>();
    const { get: find, reload } = cached(clock, load);
    const first = find('cli_a');
    calls[0]?.resolve('old secret');
    assert.equal(await first, 'old secret');
    const fresh = reload('cli_a');
    assert.equal(calls.length, 2);
    calls[1]?.resolve('rotated secret');
    assert.equal(await fresh, 'rotated secret');
    assert.equal(await find('cli_a'), 'rotated secret');
    assert.equal(calls.length, 2);
  });

  test('an unknown key is shared while loading but never kept', async () => {
    const { calls, load } = controlledLoader<string>();
    const { get: find } = cached(clock, load);
    const both = [find('cli_x'), find('cli_x')];
    calls[0]?.resolve(null);
    assert.deepEqual(await Promise.all(both), [null, null]);
    const later = find('cli_x');
    assert.equal(calls.length, 2);
    calls[1]?.resolve(null);
    assert.equal(await later, null);
  });

  test('a failed load fails its waiters and is not kept: the next request loads again', async () => {
    const { calls, load } = controlledLoader<string>();
    const { get: find } = cached(clock, load);
    const both = [find('cli_a'), find('cli_a')];
    calls[0]?.reject(new Error('connection lost'));
    for (const result of await Promise.allSettled(both)) assert.equal(result.status, 'rejected');
    const retry = find('cli_a');
    assert.equal(calls.length, 2);
    calls[1]?.resolve('client a');
    assert.equal(await retry, 'client a');
  });
});
