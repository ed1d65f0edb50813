import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { restartDelayMs } from './worker-restart.ts';

describe('restartDelayMs', () => {
  test('doubles from 250 ms with each quick crash of the same worker and stops at 30 s', () => {
    assert.deepEqual([1, 2, 3, 4, 8, 9, 50].map(restartDelayMs), [250, 500, 1000, 2000, 30_000, 30_000, 30_000]);
  });
});
