import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_ATTEMPTS, retryDelaySeconds } from './backoff.ts';

describe('retry back-off', () => {
  test('doubles from 30 seconds and adds at most 20% jitter', () => {
    const none = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryDelaySeconds(i + 1, () => 0));
    assert.deepEqual(none, [30, 60, 120, 240, 480, 960, 1920]);
    assert.equal(
      retryDelaySeconds(3, () => 0.999_999),
      144,
    );
  });

  test('never waits more than an hour plus jitter', () => {
    assert.equal(
      retryDelaySeconds(40, () => 0),
      3600,
    );
    assert.equal(
      retryDelaySeconds(40, () => 0.5),
      3960,
    );
  });
});
