// server.workers = "auto": one worker per two CPUs, at least one (docs/decisions.md "The default number of workers").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerCount } from './supervisor.ts';

test('auto runs one worker per two CPUs and never none', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 8, 64].map((cpus) => workerCount('auto', cpus)),
    [1, 1, 1, 2, 2, 4, 32],
  );
});

test('a number is taken as it is', () => {
  assert.equal(workerCount(3, 2), 3);
  assert.equal(workerCount(1, 64), 1);
});
