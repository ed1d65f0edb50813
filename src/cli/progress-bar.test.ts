import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { progressReporter } from './progress-bar.ts';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) > 0 };
}

describe('progressReporter', () => {
  test('on a terminal redraws one bar in place and ends its line once', () => {
    const out = stream(true);
    const bar = progressReporter(out, 'backup');
    bar.sink({ done: 1, total: 4, label: 'emails (3 rows)' });
    bar.sink({ done: 4, total: 4, label: 'sessions (1 rows)' });
    bar.end();
    assert.deepEqual(out.written, [
      '\r\x1b[2Kbackup [######------------------] 1/4 emails (3 rows)',
      '\r\x1b[2Kbackup [########################] 4/4 sessions (1 rows)',
      '\n',
    ]);
  });

  test('elsewhere writes one plain line per step and no control characters', () => {
    const out = stream(false);
    const bar = progressReporter(out, 'restore');
    bar.sink({ done: 2, total: 3, label: 'identities (5 rows)' });
    bar.end();
    assert.deepEqual(out.written, ['restore: 2/3 identities (5 rows)\n']);
  });
});
